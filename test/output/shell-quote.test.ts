/**
 * The one builder of printed commands (src/output/shell-quote.ts, cli-contract 7.16 c), as a table:
 * each hostile value is built into a command, the command is pasted into a real `sh -c`, and the
 * stub program first on PATH must be the only thing that ran, with exactly the given arguments.
 * Control characters, line breaks included, are never printed raw (they would drive the terminal,
 * cli-contract 4, or start a line that reads as a command of its own): printf writes them back, so
 * the argument arrives exactly as given, and nothing else runs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { shellArg, shellCommand, svcCommand } from '../../src/output/shell-quote.js';
import { PasteShell } from '../support/paste-shell.js';

const shell = new PasteShell(['svc', 'psql']);
afterAll(() => shell.cleanup());

const m = shell.marker;
const table: Array<[string, string, string?]> = [
  ['a semicolon', `rw_usr_1;touch\${IFS}${m};#`],
  ['a command substitution', `$(touch ${m})`],
  ['backquotes', `\`touch ${m}\``],
  ['single quotes', `it's';touch ${m};'`],
  ['double quotes', `"$(touch ${m})"`],
  ['a line break', `rw_1\ntouch ${m}`],
  ['a line break, then a comment that would hide a closing quote', `x\ntouch ${m} #`],
  ['a carriage return and a backslash before an octal-looking text', 'a\r\\0101b'],
  ['a tab', 'a\tb'],
  ['a leading dash', '-rf'],
  ['a leading double dash', '--in-place'],
  ['non-ASCII', 'base_ünïcødé_数据_😀'],
  ['ANSI escapes', 'rw_\u001b]0;title\u0007\u001b[31mred\u001b[0m'],
  ['a C1 control', 'rw_\u009b31m'],
  ['an empty string', ''],
  ['spaces and globs', `* ? [a] ~ ${m}`],
  ['a redirection', `> ${m}`],
  ['a pipe and &&', `x | touch ${m} && touch ${m}`],
  ['a backslash', 'a\\b\\'],
  ['a plain id', 'rw_0003'],
];

describe('shellCommand: pasted into sh, it runs the program with exactly these arguments and nothing else', () => {
  it.each(table)('%s', async (_name, value, arrives = value) => {
    const pasted = await shell.paste(shellCommand(['svc', 'restore', 'create', '--window', value, value]));
    expect(pasted.runs).toEqual([{ program: 'svc', args: ['restore', 'create', '--window', arrives, arrives] }]);
    expect(shell.injected).toBe(false);
  });

  it('a command is one line with no control character, whatever its arguments hold', () => {
    expect(shellCommand(['svc', 'recovery', 'summary', 'x\nrm -rf ~ #', 'a\r\nb'])).toBe(
      `svc recovery summary "$(printf '%b' 'x\\0012rm -rf ~ #')" "$(printf '%b' 'a\\0015\\0012b')"`,
    );
  });

  it('an argument that ends in a line break, which $(...) would drop, is a syntax error: nothing runs', async () => {
    const command = shellCommand(['svc', 'restore', 'create', '--window', `w\n`, `> ${m}`]);
    expect(command).not.toMatch(/[\u0000-\u001f]/);
    const pasted = await shell.paste(command);
    expect(pasted.runs).toEqual([]);
    expect(shell.injected).toBe(false);
  });

  it('a plain id stays bare; anything else is single-quoted', () => {
    expect(shellArg('rw_0003')).toBe('rw_0003');
    expect(shellArg('postgresql://app@db.example.com:5432/orders')).toBe('postgresql://app@db.example.com:5432/orders');
    expect(shellArg("it's")).toBe(`'it'\\''s'`);
    expect(shellArg('')).toBe("''");
  });
});

describe('svcCommand: the flags the user gave, then the words, then the operands', () => {
  it('carries --base-url and --profile, and puts -- before an operand that reads as an option', async () => {
    const command = svcCommand(['restore', 'drill'], { baseUrl: 'http://127.0.0.1:4010', profile: 'prod' }, ['--in-place']);
    expect(command).toBe('svc --base-url http://127.0.0.1:4010 --profile prod restore drill -- --in-place');
    const pasted = await shell.paste(command);
    expect(pasted.runs).toEqual([
      { program: 'svc', args: ['--base-url', 'http://127.0.0.1:4010', '--profile', 'prod', 'restore', 'drill', '--', '--in-place'] },
    ]);
  });

  it.each(table)('an operand with %s', async (_name, value, arrives = value) => {
    const pasted = await shell.paste(svcCommand(['backups', 'get'], { baseUrl: `http://h/$(touch ${m})` }, [value]));
    const dash = arrives.startsWith('-') ? ['--'] : [];
    expect(pasted.runs).toEqual([{ program: 'svc', args: ['--base-url', `http://h/$(touch ${m})`, 'backups', 'get', ...dash, arrives] }]);
    expect(shell.injected).toBe(false);
  });

  it('a placeholder is shown for the person to fill in, never quoted', () => {
    expect(svcCommand(['backups', 'list', { placeholder: 'databaseId' }])).toBe('svc backups list <databaseId>');
  });
});
