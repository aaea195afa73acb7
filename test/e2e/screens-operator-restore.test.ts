/**
 * The operator screens of a restore and a drill (cli-contract 4, v4), as a person sees them: the
 * built CLI under a real pseudo-terminal 60, 80 and 120 columns wide, against the sandbox and one
 * throwaway PostgreSQL cluster. A successful restore ends on its result and the `psql` line; the
 * progress of pg_restore keeps its figures and names the table loading, dropping the DSN first; a
 * Ctrl-C leaves no frozen spinner and no `^C` before the next line; a drill on a terminal shows
 * the restore's figures; the in-place prompt keeps its bar on wrapped lines; a dry run says the
 * connections the download would use. Skips without a PostgreSQL server or python3, except under CI.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { execa } from 'execa';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startArtifactServer, type ArtifactServer } from '../support/artifact-server.js';
import { BIN, ensureBuilt, tempDir } from '../support/built-cli.js';
import { restoreScreenEnv, runScreen, tooWide, type ScreenCase, type ScreenRun } from '../support/fit-screens.js';
import { pgSkipReason, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { disposePtys, ptySkipReason } from '../support/pty.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { leaksIn } from '../support/secret-scan.js';

const skip = pgSkipReason() ?? ptySkipReason();
if (skip) console.warn(`test/e2e/screens-operator-restore.test.ts skipped: ${skip}`);

const WIDTHS = [60, 80, 120] as const;
/**
 * A table whose load takes seconds, long enough for frames that name it and for a Ctrl-C during it:
 * a CHECK that sleeps a millisecond a row, which pg_restore's COPY checks as it loads.
 */
const BIG_ROWS = 5_000;
const SPINNER = /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

/** Every frame a spinner drew, as text: the raw bytes split where the terminal was told to move or clear. */
function frames(raw: string): string[] {
  return raw
    .split(/\x1b\[[0-9;?]*[A-Za-z]|\r|\n/)
    .map((piece) => stripVTControlCharacters(piece).trimEnd())
    .filter((piece) => SPINNER.test(piece));
}

const joined = (run: ScreenRun) => run.lines.join(' ').replace(/\s+/g, ' ');
const show = (run: ScreenRun) => `at ${run.width} columns (exit ${run.result.exitCode ?? run.result.signal}):\n${run.lines.join('\n')}`;

describe.skipIf(!!skip)('operator screens of a restore and a drill (cli-contract 4, v4)', () => {
  let sandbox: TestSandbox;
  let cluster: PgCluster;
  let big: ArtifactServer;
  let bigBody: (database: string) => string;

  beforeAll(async () => {
    const [built, sb, pg] = await Promise.allSettled([ensureBuilt(), startTestSandbox({ now: () => new Date(), recentTimestamps: true }), workerCluster()]);
    if (sb.status === 'fulfilled') sandbox = sb.value;
    if (pg.status === 'fulfilled') cluster = pg.value;
    for (const r of [built, sb, pg]) if (r.status === 'rejected') throw r.reason;
    // An archive with one table big enough that pg_restore spends seconds loading it.
    await cluster.psql('CREATE DATABASE big_source');
    await cluster.psql(
      `CREATE FUNCTION slow_ok(int) RETURNS boolean LANGUAGE sql AS 'SELECT true FROM pg_catalog.pg_sleep(0.001)';
       CREATE TABLE big (id int, note text); INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, ${BIG_ROWS}) g;
       ALTER TABLE big ADD CONSTRAINT slow CHECK (public.slow_ok(id));`,
      'big_source',
    );
    const archive = join(tempDir('big-archive'), 'big.pgdump');
    await execa(join(cluster.binDir, 'pg_dump'), ['-Fc', '-f', archive, '-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', 'big_source'], {
      env: { PGPASSWORD: cluster.password, PATH: process.env.PATH },
      extendEnv: false,
    });
    big = await startArtifactServer(archive);
    const sha = createHash('sha256').update(readFileSync(archive)).digest('hex');
    const size = statSync(archive).size;
    // Per target, a createRestore 202 body whose artifact is the big archive, for `restore run` on stdin.
    const bodies = new Map<string, string>();
    bigBody = (database) => bodies.get(database)!;
    for (const database of [...WIDTHS.map((w) => `op_r${w}`), ...WIDTHS.map((w) => `op_c${w}`)]) {
      const res = await request(`${sandbox.baseUrl}/api/v1/restores`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.token('full')}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ backupJobId: 'bj_0007', targetRedactedDsn: cluster.dsn(database), mode: 'new_database', confirmDestructive: false }),
      });
      const body = (await res.body.json()) as { execution: { presignedS3Url: string; expectedSha256: string; expectedSizeBytes: number } };
      expect(res.statusCode).toBe(202);
      Object.assign(body.execution, { presignedS3Url: big.url, expectedSha256: sha, expectedSizeBytes: size });
      const file = join(tempDir('restore-body'), 'restore.json');
      writeFileSync(file, JSON.stringify(body));
      bodies.set(database, file);
    }
    // What an in-place restore would replace: the prompt naming it wraps at 60 and 80 columns, its DSN fits a line.
    await cluster.psql('CREATE DATABASE orders_prod_copy');
  }, 300_000);

  afterAll(async () => {
    await disposePtys();
    await Promise.all([cluster?.stop(), sandbox?.stop(), big?.stop()]);
  });

  const env = (database: string) => restoreScreenEnv(sandbox, cluster, database);
  /** `svc restore run` of the big archive, exec'd by the shell so that svc's own exit code is what the terminal reports. */
  const restoreRun = (database: string) => `exec "${process.execPath}" "${BIN}" restore run < '${bigBody(database)}'`;
  const secrets = () => ({ tokens: [sandbox.token('full')], dsnPasswords: [cluster.password], patterns: [/lk_[0-9a-f]{16,}/] });

  /** One run per width, two at a time; no line of any of them wider than its terminal, and no secret on any screen. */
  async function atWidths(make: (width: number) => ScreenCase): Promise<ScreenRun[]> {
    const runs: ScreenRun[] = [];
    for (const pair of [[60, 80], [120]] as const) runs.push(...(await Promise.all(pair.map((w) => runScreen(make(w), w)))));
    for (const run of runs) {
      expect(tooWide(run), show(run)).toEqual([]);
      expect(leaksIn(run.result.raw, secrets()), show(run)).toEqual([]);
    }
    return runs;
  }

  it('a successful restore create ends on its result and the psql line: the last 24 lines at 80x24 hold them; a service-side "no" is explained beside it', async () => {
    const runs = await atWidths((w) => ({
      args: ['restore', 'create', '--backup', 'bj_0007', ...(w === 120 ? ['--receipt', join(tempDir('receipt'), 'receipt.json')] : [])],
      env: env(`op_create_${w}`),
      shows: /connect:/,
    }));
    for (const run of runs) {
      expect(run.result.exitCode, show(run)).toBe(0);
      // At 80 and 120 columns the result and the psql line are within the last 24 lines; at 60 it wraps to more.
      const screen = run.width === 60 ? run.lines.slice(run.lines.findIndex((l) => l.startsWith('Restored backup'))) : run.lines.slice(-24);
      if (run.width === 60) expect(screen.length, show(run)).toBeLessThan(30);
      const text = screen.join('\n');
      expect(screen.join(' ').replace(/\s+/g, ' '), show(run)).toMatch(
        new RegExp(
          `Restored backup bj_0007 of db_orders into postgresql://postgres@127\\.0\\.0\\.1:${cluster.port}/op_create_${run.width} \\(new database\\)`,
          'm',
        ),
      );
      expect(text, show(run)).toMatch(/^data as of: /m);
      expect(text, show(run)).toMatch(/^objects checked: +2 tables, 1 view, 3 sequences, 2 indexes$/m);
      expect(text, show(run)).toMatch(/^durations: +preflight \d+\.\ds/m);
      // The closing line is the psql command, whole, and it names no receipt.
      const last = screen.at(-1)!;
      expect(last, show(run)).toMatch(new RegExp(`psql postgresql://postgres@127\\.0\\.0\\.1:${cluster.port}/op_create_${run.width}$`));
      expect(last).not.toMatch(/receipt/i);
      expect(screen.filter((l) => /^proof: /.test(l))).toEqual([]);
      // The service's view, above the result, in one line of data (two where the terminal wraps it),
      // each "no" explained where it stands; no block of stale "state: queued" lines before the result.
      const all = joined(run);
      const why = run.width === 120 ? "this run's receipt is the local proof" : 'the result below is the local proof';
      expect(all, show(run)).toContain(`service's view: queued, verified restore no (the service has not verified this restore; ${why})`);
      expect(all.indexOf("service's view")).toBeLessThan(all.indexOf('Restored backup bj_0007'));
      // At most two lines at 80 and 120 columns (its hanging indent continues it), three at 60.
      const view = run.lines.findIndex((l) => l.startsWith("service's view:"));
      const viewLines = 1 + run.lines.slice(view + 1).findIndex((l) => !/^ {4,}\S/.test(l));
      expect(viewLines, show(run)).toBeLessThanOrEqual(run.width === 60 ? 3 : 2);
      expect(
        run.lines.filter((l) => /^\s*state: +queued$/.test(l)),
        show(run),
      ).toEqual([]);
    }
  }, 300_000);

  it('pg_restore progress keeps its figures, names the table loading and drops the DSN first', async () => {
    const runs = await atWidths((w) => ({ args: [], shell: restoreRun(`op_r${w}`), env: env(`op_r${w}`), shows: /connect:/, timeoutMs: 180_000 }));
    for (const run of runs) {
      expect(run.result.exitCode, show(run)).toBe(0);
      const drawn = frames(run.result.raw).filter((f) => f.includes('pg_restore'));
      const loading = drawn.filter((f) => /\d+ of \d+ objects, loading public\.big \(\d+\.\ds\)$/.test(f));
      expect(loading.length, `${run.width}:\n${drawn.join('\n')}`).toBeGreaterThan(0);
      // Every frame of pg_restore's progress has its figures and its time, whatever the width.
      for (const f of drawn) expect(f, `${run.width}`).toMatch(/\d+ of \d+ objects.* \(\d+\.\ds\)$/);
      const dsn = `postgresql://postgres@127.0.0.1:${cluster.port}/op_r${run.width}`;
      if (run.width === 120)
        expect(
          loading.some((f) => f.includes(`into ${dsn}:`)),
          drawn.join('\n'),
        ).toBe(true);
      else
        expect(
          drawn.some((f) => f.includes(dsn)),
          drawn.join('\n'),
        ).toBe(false);
      // A finished spinner is replaced by its ✓ line: no frame is left on the screen.
      expect(
        run.lines.filter((l) => SPINNER.test(l)),
        show(run),
      ).toEqual([]);
    }
  }, 400_000);

  it('Ctrl-C while a table loads: the spinner is cleared before the ✗ line, and no ^C is left before it', async () => {
    const runs = await atWidths((w) => ({
      args: [],
      shell: restoreRun(`op_c${w}`),
      env: env(`op_c${w}`),
      shows: /failed/,
      exit: 130,
      answer: { when: /loading public\.big/, keys: '\x03' },
      timeoutMs: 180_000,
    }));
    for (const run of runs) {
      expect(run.result.exitCode, show(run)).toBe(130);
      expect(
        run.lines.filter((l) => SPINNER.test(l) || l.includes('^C')),
        show(run),
      ).toEqual([]);
      const failed = run.lines.findIndex((l) => /^✗ pg_restore into/.test(l));
      expect(failed, show(run)).toBeGreaterThan(0);
      expect(run.lines[failed - 1], show(run)).not.toMatch(/Running pg_restore/);
    }
  }, 400_000);

  it('restore drill on a terminal shows the restore phase with its figures, then only its lines; Ctrl-C prints no ^Cerror', async () => {
    const scratch = `postgresql://postgres@127.0.0.1:${cluster.port}/postgres`;
    const runs = await atWidths(() => ({ args: ['restore', 'drill', 'db_orders', '--scratch', scratch], env: env('postgres'), shows: /passed/ }));
    for (const run of runs) {
      expect(run.result.exitCode, show(run)).toBe(0);
      const drawn = frames(run.result.raw);
      expect(
        drawn.some((f) => /Running pg_restore.*: \d+ of \d+ objects/.test(f)),
        `${run.width}:\n${drawn.join('\n')}`,
      ).toBe(true);
      expect(joined(run)).toMatch(/db_orders: restore into svc_drill_/);
      // The figures are cleared as the phase ends: the drill's own lines say the outcome.
      expect(
        run.lines.filter((l) => SPINNER.test(l) || /^✓ (Verified|Restored)/.test(l)),
        show(run),
      ).toEqual([]);
    }
    const stopped = await atWidths(() => ({
      args: ['restore', 'drill', 'db_orders', '--scratch', scratch],
      env: env('postgres'),
      shows: /error:/,
      exit: 130,
      answer: { when: /db_orders: createRestore/, keys: '\x03' },
    }));
    for (const run of stopped) {
      expect(run.result.exitCode, show(run)).toBe(130);
      expect(
        run.lines.filter((l) => l.includes('^C')),
        show(run),
      ).toEqual([]);
      expect(
        run.lines.some((l) => l.startsWith('error:')),
        show(run),
      ).toBe(true);
    }
  }, 400_000);

  it('the in-place confirmation keeps its left bar on every line it wraps', async () => {
    const database = 'orders_prod_copy';
    const runs = await atWidths(() => ({
      args: ['restore', 'create', '--backup', 'bj_0007', '--in-place'],
      env: env(database),
      exit: 130,
      shows: /not confirmed/,
      answer: { when: /to\s+(│\s+)?confirm/, keys: '\x03' },
    }));
    for (const run of runs) {
      const start = run.lines.findIndex((l) => /In-place restore: replaces/.test(l));
      const end = run.lines.findIndex((l, i) => i > start && /confirm$/.test(l));
      expect(start, show(run)).toBeGreaterThanOrEqual(0);
      const prompt = run.lines.slice(start, end + 1);
      // The message wraps at 60 and 80 columns; each line after the first starts with the bar.
      if (run.width < 120) expect(prompt.length, show(run)).toBeGreaterThan(3);
      for (const line of prompt.slice(1)) expect(line, show(run)).toMatch(/^│ {2}/);
      expect(prompt.join(' ').replace(/│ {2}/g, '')).toContain(`postgresql://postgres@127.0.0.1:${cluster.port}/${database}`);
    }
  }, 300_000);

  it('the evidence glossary wraps each term under its meaning, not at column 2', async () => {
    const runs = await atWidths(() => ({ args: ['evidence', 'list'], env: env('postgres'), shows: /What the proof terms mean/ }));
    for (const run of runs) {
      const start = run.lines.findIndex((l) => l.startsWith('What the proof terms mean'));
      const end = run.lines.findIndex((l, i) => i > start && !l.startsWith(' '));
      const glossary = run.lines.slice(start + 1, end < 0 ? undefined : end);
      expect(glossary.length, show(run)).toBeGreaterThan(3);
      let column = -1;
      for (const line of glossary) {
        const term = /^ {2}(completed backup|verified restore|proven recoverability): +/.exec(line);
        if (term) column = term[0].length;
        else expect(/^ */.exec(line)![0].length, `${line}\n${show(run)}`).toBe(column);
      }
      // At 60 columns the meanings wrap: there are continuation lines to check.
      if (run.width === 60) expect(glossary.length, show(run)).toBeGreaterThan(3 + 3);
    }
  }, 120_000);

  it('a dry run says the connections the download would use: one stream for a 92.9 KiB artifact, as the receipt records', async () => {
    const runs = await atWidths(() => ({ args: ['restore', 'create', '--backup', 'bj_0007', '--dry-run'], env: env('op_dry'), shows: /connections:/ }));
    for (const run of runs) {
      expect(run.result.exitCode, show(run)).toBe(0);
      expect(joined(run), show(run)).toContain('connections: 1 (one stream: parallel ranges only for an artifact of 64 MiB and more)');
      expect(joined(run)).not.toMatch(/connections: 8/);
    }
  }, 300_000);
});
