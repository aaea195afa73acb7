/**
 * What an operator sees and is left with during a new-database restore (issue 18, items 2 and 3),
 * against the built CLI and a real PostgreSQL: a database svc created and pg_restore did not finish
 * is dropped (on failure and on a signal), and svc says so; --keep-partial keeps it; a database that
 * was there before is never dropped. pg_restore's progress is shown as objects done of the TOC's
 * total; piped, as in CI, a phase longer than a minute prints a heartbeat line.
 */
import { randomInt } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { spawnSvc } from '../support/built-cli.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, processesMentioning, useRestoreHarness, waitFor } from '../support/restore-harness.js';
import { onceSeen, shellGate } from '../support/shell-gate.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/operator-path.test.ts skipped: ${skip}`);

/** Objects of the seed archive pg_restore restores (its `pg_restore -l` entries, no ACL among them). */
const SEED_OBJECTS = 19;
const HEARTBEAT_MS = 1_000;

describe.skipIf(!!skip)('partial databases, pg_restore progress and the heartbeat', () => {
  const h = useRestoreHarness({ built: true });
  afterEach(() => vi.unstubAllEnvs());

  const shim = (name: string, body: string) => h.pgRestoreShim(name, body);

  const envWith = (dir: string, db: string, extra: Record<string, string> = {}) => {
    const env = h.env({ SVC_TARGET_DSN: h.dsn(db, true), ...extra });
    return { ...env, PATH: `${dir}:${env.PATH}` };
  };

  it('pg_restore fails in a database svc created: the database is dropped, and the message says so', async () => {
    const dir = await shim('fails', '"$REAL" "$@"; echo "pg_restore: error: something broke" >&2; exit 1');
    await h.dropDatabase('partial_fail');
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir()], { env: envWith(dir, 'partial_fail') });
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('pg_restore exited with code 1.');
    expect(r.stderr).toContain('pg_restore: error: something broke');
    expect(r.stderr).toContain('The new database "partial_fail", which this run created, was dropped: nothing of the partial restore is left.');
    expect(r.stderr).not.toContain('dropdb');
    expect(await h.databaseExists('partial_fail')).toBe(false);
  });

  it('--keep-partial keeps it, and says how to drop it', async () => {
    const dir = await shim('fails-kept', '"$REAL" "$@"; exit 1');
    await h.dropDatabase('partial_kept');
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--keep-partial', '--work-dir', await h.workDir()], {
      env: envWith(dir, 'partial_kept'),
    });
    expect(r.code).toBe(11);
    expect(r.stderr).toContain(
      `The new database "partial_kept" was kept as asked (--keep-partial); it may be partly restored: drop it before trying again (dropdb -h 127.0.0.1 -p ${h.cluster.port} -U postgres partial_kept).`,
    );
    expect(await h.databaseExists('partial_kept')).toBe(true);
    await h.dropDatabase('partial_kept');
  });

  it('an empty database that existed before the run is never dropped', async () => {
    const dir = await shim('fails-existing', 'exit 1');
    await h.dropDatabase('partial_existing');
    await h.cluster.psql('CREATE DATABASE partial_existing TEMPLATE template0');
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir()], { env: envWith(dir, 'partial_existing') });
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('The new database "partial_existing" may be partly restored: drop it before trying again');
    expect(await h.databaseExists('partial_existing')).toBe(true);
  });

  it.each([
    { signal: 'SIGINT', code: 130 },
    { signal: 'SIGTERM', code: 143 },
    { signal: 'SIGHUP', code: 129 },
  ] as const)('$signal during pg_restore into a database svc created: exit $code, the database dropped, and said', async ({ signal, code }) => {
    // The real restore runs, then pg_restore "keeps working" until svc forwards the signal. Each case
    // sleeps a duration no other run on the machine uses (another vitest run of this file among them,
    // whose worker may have this one's pid in a pid namespace of its own), so that it waits for its own
    // run's pg_restore and no other's.
    const sleeping = `sleep 60.${code}${randomInt(1e9, 1e10)}`;
    const dir = await shim(`sleeps-${code}`, `"$REAL" "$@" && exec ${sleeping}`);
    const db = `partial_${signal}`.toLowerCase();
    await h.dropDatabase(db);
    const workDir = await h.workDir();
    const child = spawnSvc(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: envWith(dir, db) });
    await waitFor('pg_restore done and sleeping', () => processesMentioning(sleeping).length > 0 || undefined, 30_000);
    child.kill(signal);
    const r = await child;
    h.record(String(r.stdout), String(r.stderr));
    expect(r.exitCode, String(r.stderr)).toBe(code);
    expect(r.stderr).toContain('Interrupted while restoring; the downloaded artifact was removed.');
    expect(r.stderr).toContain(`The new database "${db}", which this run created, was dropped`);
    expect(await h.databaseExists(db)).toBe(false);
    expect(processesMentioning(workDir)).toEqual([]);
    expect(processesMentioning(sleeping)).toEqual([]);
  });

  it('piped: pg_restore progress lines count objects done of the total, with the elapsed time', async () => {
    // pg_restore's own lines reach svc slowly (0.12 s apart), as on a large restore. A line may name the table
    // loading at that moment, when a 5 s tick falls while a table's data is on its way.
    const dir = await shim(
      'trickles',
      'set -o pipefail\n"$REAL" "$@" 2>&1 >/dev/null | while IFS= read -r line; do printf "%s\\n" "$line" >&2; sleep 0.12; done',
    );
    await h.dropDatabase('progress_piped');
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir()], { env: envWith(dir, 'progress_piped') });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => / of \d+ objects/.test(l));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const m =
        /^Running pg_restore into postgresql:\/\/postgres@127\.0\.0\.1:\d+\/progress_piped: (\d+) of (\d+) objects(?:, loading public\.\w+)? \((\d+\.\ds)\)$/.exec(
          line,
        );
      expect(m, line).not.toBeNull();
      expect(Number(m![2])).toBe(SEED_OBJECTS);
      expect(Number(m![1])).toBeLessThanOrEqual(SEED_OBJECTS);
    }
    expect(r.stderr).toMatch(new RegExp(`^✓ Restored ${SEED_OBJECTS} objects with pg_restore into \\S+ \\(\\d+\\.\\ds\\)$`, 'm'));
  });

  it('piped, a pg_restore that runs longer than the heartbeat interval: a heartbeat line each interval, no more often', async () => {
    // The contract's 60 s, shortened to 1 s (src/contract-timers.ts); pg_restore waits until the test has seen a heartbeat.
    vi.stubEnv('SVC_TEST_HEARTBEAT_MS', String(HEARTBEAT_MS));
    const gate = shellGate(h.scratch);
    const dir = await shim('slow', `${gate.wait}\nexec "$REAL" "$@"`);
    await h.dropDatabase('progress_heartbeat');
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir()], {
      env: envWith(dir, 'progress_heartbeat'),
      onStderr: onceSeen(/^Running pg_restore into \S+ \(still running/m, gate.open),
    });
    expect(r.code, r.stderr).toBe(0);
    const beat = /^Running pg_restore into postgresql:\/\/postgres@127\.0\.0\.1:\d+\/progress_heartbeat \(still running, (\d+\.\d)s\)$/;
    const secs = r.stderr
      .split('\n')
      .filter((l) => l.includes('still running'))
      .map((l) => Number(beat.exec(l)?.[1] ?? NaN));
    expect(secs.length, r.stderr).toBeGreaterThanOrEqual(1);
    // Each beat says how long the phase has run: a full interval at the first, an interval more at each next.
    expect(secs[0], r.stderr).toBeGreaterThanOrEqual((HEARTBEAT_MS - 100) / 1000);
    for (let i = 1; i < secs.length; i++) expect(secs[i]! - secs[i - 1]!, r.stderr).toBeGreaterThanOrEqual((HEARTBEAT_MS - 150) / 1000);
  });
});
