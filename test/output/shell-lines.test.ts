/**
 * Example commands in help are copied and run: on a narrow terminal they are broken only where a
 * shell reads the lines back as the same command (a trailing backslash, or after a pipe).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { exampleLines, shellLines } from '../../src/output/shell-lines.js';

const EXAMPLES = [
  'svc restore create --backup bj_123 --in-place --confirm --target postgresql://app@db.internal/orders',
  'svc restore drill db_orders --check checks/orders.sql --before 2026-11-24T14:32:00Z',
  `svc api databases --paginate --jq ".databases[] | {id, name}"`,
  "svc api 'databases/db_123/backups?limit=5'",
  'svc completion fish > ~/svc-completions-for-fish.fish',
  `echo '{"trigger":"adhoc"}' | svc api databases/db_123/backups --input -`,
];

/**
 * What sh runs for the lines: the arguments `svc` and `echo` get, each in brackets, and the files a
 * redirection wrote, in a directory of its own (HOME too).
 */
async function argvOf(lines: string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-shell-lines-'));
  try {
    const script = `svc() { printf '[%s]' "$@"; echo; }\necho() { printf '[%s]' "$@"; }\n${lines.join('\n').replace(/^ {2}\$ /, '')}`;
    const r = await execa('sh', ['-c', script], { cwd: dir, env: { HOME: dir, PATH: process.env.PATH }, extendEnv: false, reject: false });
    const written = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    return `${r.stdout}${r.stderr}${written.map((e) => ` ${join(e.parentPath, e.name).slice(dir.length)}: ${readFileSync(join(e.parentPath, e.name), 'utf8')}`).join('')}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('exampleLines', () => {
  it('a command that fits is one line, as written', () => {
    expect(exampleLines('svc databases list', 40)).toEqual(['  $ svc databases list']);
  });

  it.each([40, 50, 60])('at %i columns every line fits, and sh runs the broken lines with the same arguments', async (width) => {
    for (const command of EXAMPLES) {
      const lines = exampleLines(command, width);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(width);
      expect(await argvOf(lines), lines.join('\n')).toBe(await argvOf([command]));
    }
  });

  it('breaks after a pipe without a backslash (PowerShell reads that too), and puts a trailing comment above', () => {
    expect(exampleLines('svc completion powershell | Out-String | Invoke-Expression   # in $PROFILE', 40)).toEqual([
      '  # in $PROFILE',
      '  $ svc completion powershell |',
      '    Out-String | Invoke-Expression',
    ]);
  });

  it('keeps an option with its value, and a redirection with its file, where they fit', () => {
    expect(exampleLines('svc api restores --input restore-request.json --idempotency-key restore-1', 40)).toEqual([
      '  $ svc api restores \\',
      '    --input restore-request.json \\',
      '    --idempotency-key restore-1',
    ]);
    expect(exampleLines('svc sandbox --port 0 --json > sandbox.json &', 30)).toEqual(['  $ svc sandbox --port 0 \\', '    --json > sandbox.json &']);
  });

  it('never splits a word: quoted text is one word, and one too wide for any line starts at the first column', () => {
    expect(exampleLines(`svc api databases --jq ".databases[] | {id, name}"`, 32)).toEqual([
      '  $ svc api databases --jq \\',
      '    ".databases[] | {id, name}"',
    ]);
    const token = `SVC_API_KEY=svc_sandbox_${'0'.repeat(32)}`;
    expect(shellLines(`export ${token}`, 40, '  ', '    ')).toEqual(['  export \\', token]);
  });
});
