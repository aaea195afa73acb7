/**
 * docs/commands.md and man/svc.1 are generated from the command tree (tools/docs.ts): the committed
 * files must be what the tree gives now, so help, reference and man page cannot disagree; and the
 * man page must render cleanly with the machine's man (groff), as `man svc` shows it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDocs, GENERATED } from '../tools/docs/generate.js';
import { mdText } from '../tools/docs/markdown.js';
import { allCommands, readReference } from '../tools/docs/reference.js';
import { roffText } from '../tools/docs/roff.js';
import { EXIT_CODES } from '../src/exit-codes.js';
import { ROOT } from './support/built-cli.js';
import { manSkipReason, renderMan } from './support/man.js';
import { runCli } from './support/run-cli.js';

const generated = generateDocs();

describe('the generated reference and man page', () => {
  it.each(GENERATED)('%s is what `npm run docs` writes now', (file) => {
    const committed = readFileSync(join(ROOT, file), 'utf8');
    // On a mismatch: run `npm run docs` and commit the result.
    expect(committed).toBe(generated[file]);
  });

  it('says what --help says: every command, usage line, option and example', async () => {
    const doc = generated['docs/commands.md'];
    for (const cmd of allCommands(readReference().root).slice(1)) {
      const help = await runCli([...cmd.path, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: ${cmd.usage}`);
      expect(doc).toContain(`\n${cmd.usage}\n`);
      // An example longer than the help's width goes on as shell continues it: after " \\" or after "&&" / "|".
      const unwrapped = help.stdout.replace(/( \\|&&|\|)\n +/g, (_, op: string) => (op === ' \\' ? ' ' : `${op} `));
      for (const example of cmd.examples) {
        expect(unwrapped).toContain(`$ ${example}`);
        expect(doc).toContain(`\n${example}\n`);
      }
      for (const option of cmd.options) expect(help.stdout).toContain(option.term);
    }
  });

  it('escapes what Markdown would read as markup: tags, tables, emphasis', () => {
    expect(mdText('receipts/<databaseId>.json')).toBe('receipts/&lt;databaseId&gt;.json');
    expect(mdText('a | b')).toBe('a \\| b');
    expect(mdText('svc_drill_* databases, _not_ SVC_API_KEY')).toBe('svc_drill\\_\\* databases, \\_not\\_ SVC_API_KEY');
  });

  it('prints a `quoted command` as a code span, as written: no entity or backslash shows inside one', () => {
    expect(mdText('List them with `svc backups list <databaseId>`, or <x>.')).toBe('List them with `svc backups list <databaseId>`, or &lt;x&gt;.');
    const reference = readFileSync(join(ROOT, 'docs/commands.md'), 'utf8');
    expect(reference).toContain('List the backups with `svc backups list <databaseId>`, or name one with --backup.');
    // Outside the fenced blocks, no code span holds an entity or an escaped character.
    const prose = reference.replace(/^```[\s\S]*?^```$/gm, '');
    const spans = [...prose.matchAll(/(?<!\\)`([^`\n]+)`/g)].map((m) => m[1]!);
    expect(spans.length).toBeGreaterThan(10);
    expect(spans.filter((s) => /&[a-z]+;|\\[^|]/.test(s))).toEqual([]);
  });
});

describe("the README's first screen", () => {
  it('keeps the two set-up commands at the top, then shows a first run within 24 lines: install, log in, a first command', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
    expect(readme.length).toBeLessThan(400);
    const first = readme.slice(0, 24);
    const commands = first.filter((l) => /^(npm ci|npm test|svc (auth|databases|backups|recovery|restore) )/.test(l));
    expect(commands[0]).toMatch(/^npm ci && npm run demo /);
    expect(commands[1]).toMatch(/^npm test /);
    expect(commands.slice(2).join('\n')).toMatch(/npm install -g [^\n]*\nsvc auth login [^\n]*\nsvc databases list /);
  });
});

const skip = manSkipReason();

describe.skipIf(!!skip)(`man renders it${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-docs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('man/svc.1 renders without a warning, with every section, command and exit code', async () => {
    const page = await renderMan({ file: join(ROOT, 'man/svc.1') });
    expect(page.stderr).toBe('');
    expect(page.exitCode).toBe(0);
    for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'GLOBAL OPTIONS', 'COMMANDS', 'EXIT STATUS', 'ENVIRONMENT', 'FILES', 'SEE ALSO']) {
      expect(page.text).toMatch(new RegExp(`^${section}$`, 'm'));
    }
    for (const cmd of allCommands(readReference().root).slice(1)) expect(page.text).toContain(['svc', ...cmd.path].join(' '));
    const exitStatus = page.text.slice(page.text.indexOf('\nEXIT STATUS\n'), page.text.indexOf('\nENVIRONMENT\n'));
    for (const { code } of EXIT_CODES) expect(exitStatus).toMatch(new RegExp(`^ +${code}\\b`, 'm'));
    // Options come out as typed, with ASCII hyphens: a reader copies them.
    expect(page.text).toContain('--incident-time <iso8601>');
  });

  it('roffText keeps text as text: a leading dot or apostrophe, backslashes, hyphens and UTF-8 come out as written', async () => {
    const lines = ['.SH is not a request here', "'br nor this", 'C:\\path\\to and \\fB no font change', 'svc --json -- drill ✓ …'];
    const file = join(dir, 'escape.1');
    writeFileSync(file, ['.TH ESCAPE 1', '.SH NAME', 'escape \\- test', '.SH DESCRIPTION', ...lines.flatMap((l) => ['.PP', roffText(l)])].join('\n'));
    const page = await renderMan({ file });
    expect(page.stderr).toBe('');
    for (const line of lines) expect(page.text).toContain(line);
  });
});
