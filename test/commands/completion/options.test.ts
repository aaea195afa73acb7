import { describe, expect, it } from 'vitest';
import * as complete from '../../../src/commands/completion/complete.js';
import * as script from '../../../src/commands/completion/script.js';
import { UsageError } from '../../../src/errors.js';
import { expectUsage, type UsageRow } from '../options-table.js';

/**
 * The completion verbs never reach the host (no Session), so parseOptions cannot stop after their
 * options(): rows that parse call options() directly; refusals go through the real command tree.
 */
describe('completion options()', () => {
  it.each([['bash'], ['zsh'], ['fish'], ['powershell']])('%s', (shell) => {
    expect(script.options([shell])).toStrictEqual({ shell });
  });

  it.each([
    ['tcsh', /^Unknown shell "tcsh": svc writes completion scripts for bash, zsh, fish, powershell\.$/],
    ['Bash', /^Unknown shell "Bash"/],
    ['', /^Unknown shell ""/],
    [undefined, /^Name a shell: svc writes completion scripts for bash, zsh, fish, powershell\.$/],
  ])('refuses the shell %j', (shell, message) => {
    const args = shell === undefined ? [] : [shell];
    expect(() => script.options(args)).toThrow(UsageError);
    expect(() => script.options(args)).toThrow(message);
  });

  const refused: UsageRow[] = [
    ['an unknown shell', ['completion', 'tcsh'], /^Unknown shell "tcsh"/],
    ['no shell: the valid ones named', ['completion'], /^Name a shell: svc writes completion scripts for bash, zsh, fish, powershell\.$/],
    ['two shells (commander)', ['completion', 'bash', 'zsh'], /too many arguments for 'completion'/],
    ['an unknown option (commander)', ['completion', 'bash', '--install'], /unknown option '--install'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('complete options()', () => {
  it.each([
    ['a trailing empty word: completing after a space', ['databases', ''], { words: ['databases', ''] }],
    ['flags of the line being typed, -h included, are words', ['-h', '--json', 'api', '-X', ''], { words: ['-h', '--json', 'api', '-X', ''] }],
  ])('%s', (_name, words, expected) => {
    expect(complete.options(words)).toStrictEqual(expected);
  });
});
