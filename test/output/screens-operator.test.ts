/**
 * The operator screens of cli-contract 4 (v4), as a person sees them: the built CLI under a real
 * pseudo-terminal 60, 80 and 120 columns wide, against the sandbox. Each case asserts the fix the
 * screen needed: one recommendation, a `Next:` command that pastes and runs, the service's view of a
 * restore explained, lists newest first and labelled, a hidden prompt that echoes nothing, a drill
 * table that keeps its failed check, failures in colour.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ensureBuilt } from '../support/built-cli.js';
import { runScreen, type ScreenRun } from '../support/fit-screens.js';
import { disposePtys, ptySkipReason } from '../support/pty.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const skip = ptySkipReason();
const WIDTHS = [60, 80, 120] as const;

/** The command lines a screen prints after `Next:`-style lines, joined as the shell reads them back. */
function pastedCommands(lines: string[], first: RegExp): string[] {
  const start = lines.findIndex((l) => first.test(l));
  if (start < 0) return [];
  const out: string[] = [];
  for (let i = start; i < lines.length; i++) {
    out.push(lines[i]!);
    if (!lines[i]!.endsWith(' \\')) break;
  }
  return out;
}

describe.skipIf(!!skip)('operator screens (cli-contract 4, v4) under a pseudo-terminal', () => {
  let sandbox: TestSandbox;
  let home: string;
  beforeAll(async () => {
    await ensureBuilt();
    sandbox = await startTestSandbox({ now: () => new Date(), recentTimestamps: true });
    home = mkdtempSync(join(tmpdir(), 'svc-screens-'));
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
  const incident = () => new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

  it.each(WIDTHS)('recovery candidate at %i columns: one recommendation, and a Next: command that pastes and runs', async (width) => {
    const run = await at(['recovery', 'candidate', 'db_orders', '--incident-time', incident()], width);
    expect(run.result.exitCode, run.lines.join('\n')).toBe(0);
    // One recommendation: the candidate's answer for the incident; the window's "No action needed." only as context.
    const recommendations = run.lines.filter((l) => /^\s*recommended action:/.test(l));
    expect(recommendations, run.lines.join('\n')).toHaveLength(1);
    expect(run.lines.join(' ').replace(/\s+/g, ' ')).toMatch(/recommended action: Restore window rw_0003 into a new database and compare\./);
    expect(run.lines.join(' ').replace(/\s+/g, ' ')).toContain(
      'The service\'s summary of window rw_0003 says "No action needed.": that is the window\'s own state',
    );
    const pasted = pastedCommands(run.lines, /^\s+svc restore create /);
    expect(pasted.length, run.lines.join('\n')).toBeGreaterThan(0);
    for (const line of pasted) expect(line.length).toBeLessThanOrEqual(width);
    const script = pasted.join('\n');
    expect((await execa('bash', ['-n', '-c', script], { reject: false })).exitCode).toBe(0);
    // Run as pasted (svc is the built CLI), as a dry run: it parses, reaches the service and stops at the target.
    const ran = await execa('bash', ['-c', `svc() { "${process.execPath}" "${BIN}" "$@"; }\n${script} --dry-run`], {
      env: env(),
      extendEnv: false,
      reject: false,
    });
    expect(ran.stderr).not.toMatch(/argument missing|unknown option|too many arguments/);
    expect(ran.exitCode).not.toBe(2);
    // The pasted command reached its preflight whole: the target it names is the one it tried.
    expect(ran.stderr).toContain('Cannot connect to the target postgresql://USER@HOST:5432/NEW_DATABASE');
  });

  it.each(WIDTHS)('restore get at %i columns says the service is not told the local outcome', async (width) => {
    const created = await execa(
      process.execPath,
      [
        BIN,
        'api',
        '/restores',
        '-f',
        'backupJobId=bj_0007',
        '-f',
        'targetRedactedDsn=postgresql://app@db.internal:5432/orders_restored',
        '-f',
        'mode=new_database',
        '-f',
        'confirmDestructive=false',
      ],
      { env: env(), extendEnv: false },
    );
    const id = (JSON.parse(created.stdout) as { restoreJob: { id: string } }).restoreJob.id;
    const run = await at(['restore', 'get', id], width);
    expect(run.result.exitCode).toBe(0);
    const text = run.lines.join(' ').replace(/\s+/g, ' ');
    expect(text).toContain("This is the service's record of the job");
    expect(text).toContain('API v1 has no operation to tell the service the outcome');
    expect(text).toMatch(/"state: queued" and "verified restore: no" do not say how the local restore went/);
  });

  it.each(WIDTHS)('backups list at %i columns: newest first', async (width) => {
    const run = await at(['backups', 'list', 'db_orders'], width);
    const ids = run.lines.map((l) => /^(bj_\d+)\s/.exec(l)?.[1]).filter((x): x is string => Boolean(x));
    expect(ids.length, run.lines.join('\n')).toBeGreaterThan(2);
    expect(ids).toEqual([...ids].sort().reverse());
  });

  it.each(WIDTHS)('evidence list at %i columns says whose rows they are', async (width) => {
    const mixed = await at(['evidence', 'list'], width);
    expect(mixed.lines.join(' ').replace(/\s+/g, ' ')).toContain('These rows mix the backups of every database');
    const one = await at(['evidence', 'list', '--database', 'db_orders'], width);
    expect(one.lines.join(' ').replace(/\s+/g, ' ')).toContain("Every row is evidence of db_orders's backups.");
  });

  it.each(WIDTHS)('auth login at %i columns: the hidden prompt echoes nothing, not even one * per key', async (width) => {
    const token = sandbox.token('full');
    const run = await runScreen(
      {
        args: ['auth', 'login', '--base-url', sandbox.baseUrl],
        env: cleanEnv({ XDG_CONFIG_HOME: join(home, `login-${width}`), SVC_KEYCHAIN: 'file' }),
        shows: /Logged in|stored/,
        answer: { when: /input is\s+hidden/, keys: `${token}\r` },
      },
      width,
    );
    expect(run.result.exitCode, run.result.screen).toBe(0);
    expect(run.result.screen).not.toMatch(/\*{3,}|•{3,}|▪{3,}/);
    expect(run.result.screen).not.toContain(token);
  });

  it.each(WIDTHS)('a drill table at %i columns keeps its failed check, and a failure is red', async (width) => {
    const run = await at(['restore', 'drill', '--all', '--dry-run'], width, {
      SVC_API_KEY: sandbox.token('drill'),
      NO_COLOR: undefined,
      TERM: 'xterm-256color',
    });
    expect(run.result.exitCode).toBe(13);
    const row = run.lines.find((l) => l.startsWith('db_analytics'));
    expect(row, run.lines.join('\n')).toMatch(/failed\s+backup_selected$/);
    expect(run.result.raw).toMatch(/\x1b\[31mfailed/);
  });
});

describe('--no-headers', () => {
  let sandbox: TestSandbox;
  beforeAll(async () => {
    await ensureBuilt();
    sandbox = await startTestSandbox({});
  }, 120_000);
  afterAll(() => sandbox?.stop());

  it('`svc databases list --all --no-headers | wc -l` counts databases; without it, the header line too', async () => {
    const env = cleanEnv({ SVC_BASE_URL: sandbox.baseUrl, SVC_API_KEY: sandbox.token('full') });
    const count = (await execa(process.execPath, [BIN, 'databases', 'list', '--all', '--json'], { env, extendEnv: false })).stdout;
    const databases = (JSON.parse(count) as { databases: unknown[] }).databases.length;
    const lines = async (args: string[]) =>
      (await execa('sh', ['-c', `"${process.execPath}" "${BIN}" ${args.join(' ')} | wc -l`], { env, extendEnv: false })).stdout.trim();
    expect(await lines(['databases', 'list', '--all', '--no-headers'])).toBe(String(databases));
    expect(await lines(['databases', 'list', '--all'])).toBe(String(databases + 1));
  });
});
