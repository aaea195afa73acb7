/**
 * Messages that tell the truth (cli-contract 4, v5), as a person sees them: the built CLI under a
 * real pseudo-terminal, against the sandbox. A failed --jq after reads says nothing of a POST, names
 * the document's keys and reads as lines, not a JSON blob; svc mcp serve says what it waits for, and
 * Ctrl-C ends it without an error line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, cleanEnv, ensureBuilt } from '../support/built-cli.js';
import { runScreen, type ScreenRun } from '../support/fit-screens.js';
import { disposePtys, ptySkipReason } from '../support/pty.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const skip = ptySkipReason();

const show = (run: ScreenRun) => `at ${run.width} columns (exit ${run.result.exitCode ?? run.result.signal}):\n${run.lines.join('\n')}`;
const joined = (run: ScreenRun) => run.lines.join(' ').replace(/\s+/g, ' ');

describe.skipIf(!!skip)('messages that tell the truth (cli-contract 4, v5) under a pseudo-terminal', () => {
  let sandbox: TestSandbox;
  let home: string;
  beforeAll(async () => {
    await ensureBuilt();
    sandbox = await startTestSandbox({ now: () => new Date(), recentTimestamps: true });
    home = mkdtempSync(join(tmpdir(), 'svc-truth-'));
  }, 120_000);
  afterAll(async () => {
    await disposePtys();
    await sandbox?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string | undefined> = {}) =>
    cleanEnv({ SVC_BASE_URL: sandbox.baseUrl, SVC_API_KEY: sandbox.token('full'), XDG_CONFIG_HOME: join(home, 'config'), ...extra });
  const at = (args: string[], width: number, extra: Record<string, string | undefined> = {}): Promise<ScreenRun> =>
    runScreen({ args, env: env(extra), shows: /./ }, width);

  it('a failed --jq on a read: no POST, the top-level keys, readable lines that wrap at spaces', async () => {
    const run = await at(['databases', 'list', '--jq', '.data[].id'], 60);
    expect(run.result.exitCode, show(run)).toBe(2);
    const text = joined(run);
    expect(text).not.toMatch(/POST/);
    expect(text).not.toMatch(/\{"error"/);
    expect(text).toContain("The document's top-level keys are .databases, .nextCursor.");
    expect(text).toContain('nothing was changed at the service');
    expect(run.lines[0]).toMatch(/^error: The --jq expression failed/);
    for (const line of run.lines) expect(line.length, show(run)).toBeLessThanOrEqual(60);
  });

  it('svc mcp serve at a terminal says it waits for a client on stdin; Ctrl-C stops it with exit 130 and no error line', async () => {
    const run = await runScreen({ args: ['mcp', 'serve'], env: env(), shows: /./, answer: { when: /Waiting for an MCP client/, keys: '\x03' } }, 80);
    const text = joined(run);
    expect(text, show(run)).toContain('Waiting for an MCP client on standard input');
    expect(run.result.exitCode, show(run)).toBe(130);
    expect(text, show(run)).toContain('The MCP server stopped (Ctrl-C).');
    expect(text, show(run)).not.toMatch(/error:/);
  });

  it.each([
    [
      'a space for the T, no zone: read in TZ, said',
      '2026-11-27 22:00',
      0,
      "--incident-time 2026-11-27 22:00 has no time zone: read in this machine's, Europe/Paris (UTC+01:00), as 2026-11-27T21:00:00Z.",
    ],
    [
      'a wall-clock time passed twice (DST ends): refused',
      '2026-10-25 02:30',
      2,
      'Ambiguous --incident-time "2026-10-25 02:30": in Europe/Paris that time happens twice',
    ],
    ['a wall-clock time skipped (DST starts): refused', '2026-03-29 02:30', 2, 'that time does not exist in Europe/Paris'],
    ['a date alone: refused', '2026-11-27', 2, 'Invalid --incident-time "2026-11-27"'],
  ])('--incident-time, the built CLI in TZ=Europe/Paris: %s', async (_name, time, code, says) => {
    const r = await execa(process.execPath, [BIN, 'recovery', 'candidate', 'db_orders', '--incident-time', time], {
      env: env({ TZ: 'Europe/Paris' }),
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode, r.stderr).toBe(code);
    expect(r.stderr).toContain(says);
    if (code === 0) expect(r.stdout).toMatch(/^incident time: +2026-11-27T21:00:00Z/m);
  });
});
