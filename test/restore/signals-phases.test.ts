import { randomInt } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg-cluster.js';
import { spawnSvc } from '../support/built-cli.js';
import { hang, json } from '../support/loopback-server.js';
import { BACKUP_ID, processesMentioning, useRestoreHarness, waitFor } from '../support/restore-harness.js';
import { blackHole, holdLock, lockWaiter, releaseAll, wireGate } from '../support/restore-signals.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/signals-phases.test.ts skipped: ${skip}`);

const SIGNALS = [
  { signal: 'SIGINT', code: 130 },
  { signal: 'SIGTERM', code: 143 },
  { signal: 'SIGHUP', code: 129 },
] as const;

/** A run caught in one phase: how it was started, and what its report and the world must show after. */
interface Caught {
  env: Record<string, string | undefined>;
  /** Resolves once svc is surely inside the phase. */
  reached(): Promise<unknown>;
  /** The lines the report must hold for this phase. */
  says: string[];
  /** The phase's own evidence that the signal stopped it cleanly (children gone, target as said). */
  after(): Promise<void>;
}

/**
 * SIGINT, SIGTERM and SIGHUP at each phase of `svc restore create` that lasts long enough to be
 * caught, against the built CLI and a real PostgreSQL: the exit code of the signal, the report
 * naming the target's state for that phase, nothing left in the work dir, no PGPASSFILE, no child
 * process. `verify` is not here: it reads the archive's header from the file on disk, a few bytes,
 * with nothing to wait for, so no signal can be aimed at it.
 */
describe.skipIf(!!skip)('a signal in each phase of a restore (built CLI as a subprocess, real PostgreSQL)', () => {
  const h = useRestoreHarness({ built: true });
  /** Gates a shim may still wait at when a test fails early: opened, so no shim is left polling. */
  const gates: Array<() => void> = [];
  afterEach(() => {
    for (const open of gates.splice(0)) open();
    return releaseAll();
  });

  const notTouched = (where: string) => `Interrupted before the download. The target ${where} was not touched.`;
  const noSessionIn = (db: string) =>
    waitFor(
      `no session left in ${db}`,
      async () => (await h.cluster.psql(`SELECT count(*) FROM pg_stat_activity WHERE datname = '${db}'`)) === '0' || undefined,
    );
  const lastAnalyze = (db: string) => h.cluster.psql("SELECT coalesce(last_analyze::text, 'never') FROM pg_stat_user_tables WHERE relname = 'orders'", db);

  /** A new-database restore into `db` (created empty first, so a lock can be held there before svc starts). */
  async function emptyDatabase(db: string): Promise<void> {
    await h.dropDatabase(db);
    await h.cluster.psql(`CREATE DATABASE ${db} TEMPLATE template0`);
  }

  const PHASES: Record<string, (db: string, workDir: string) => Promise<Caught>> = {
    /** svc's target check connects to a server that accepts TCP and never answers. */
    async preflight(db) {
      const server = await blackHole();
      const dsn = h.dsn(db, true).replace(`:${h.cluster.port}/`, `:${server.port}/`);
      return {
        env: h.env({ SVC_TARGET_DSN: dsn }),
        reached: server.accepted,
        says: [notTouched(`postgresql://postgres@127.0.0.1:${server.port}/${db}`)],
        async after() {
          // The connection attempt was stopped, not left to its 10 s connect timeout: its connection is closed.
          await waitFor('svc gone from the black-hole server', () => server.open() === 0 || undefined, 5_000);
          expect(h.api.exchanges).toEqual([]);
        },
      };
    },
    /** getBackup answers; createRestore never does. */
    async createRestore(db) {
      h.api.script(json(200, h.backupBody(), { 'X-Request-ID': 'req_backup_1' }), hang());
      return {
        env: h.env({ SVC_TARGET_DSN: h.dsn(db, true) }),
        reached: () => waitFor('the createRestore request', () => h.createRestoreRequests().length === 1 || undefined),
        says: [
          `Interrupted while the service was creating the restore job; it may exist and stay queued (svc restore get shows it). The target ${h.redacted(db)} was not touched.`,
        ],
        async after() {
          expect(h.createRestoreRequests()).toHaveLength(1);
          expect(h.allArtifactRequests()).toEqual([]);
          expect(await h.databaseExists(db)).toBe(false);
        },
      };
    },
    /** The artifact trickles in. */
    async download(db, workDir) {
      h.artifact.setMode({ slow: { bytesPerChunk: 2048, delayMs: 60 } });
      return {
        env: h.env({ SVC_TARGET_DSN: h.dsn(db, true) }),
        reached: () =>
          waitFor('a partial artifact on disk', async () => {
            const [run] = await readdir(workDir);
            const size = run
              ? await stat(join(workDir, run, 'artifact.dump')).then(
                  (s) => s.size,
                  () => 0,
                )
              : 0;
            return (size > 0 && size < h.info.sizeBytes) || undefined;
          }),
        says: [`Interrupted during the download; the partial artifact was removed. The target ${h.redacted(db)} was not touched.`],
        async after() {
          expect(await h.databaseExists(db)).toBe(false);
          expect(await h.pgRestoreRuns()).toEqual([]);
        },
      };
    },
    /** pg_restore reaches the foreign key, whose triggers wait for a lock on pg_trigger. */
    async restore(db, workDir) {
      await emptyDatabase(db);
      const lock = await holdLock(h, db, 'LOCK TABLE pg_catalog.pg_trigger IN SHARE MODE;', 'pg_trigger');
      return {
        env: h.env({ SVC_TARGET_DSN: h.dsn(db, true) }),
        reached: () => lockWaiter(h, db),
        says: [
          'Interrupted while restoring; the downloaded artifact was removed.',
          `The new database "${db}" may be partly restored: drop it before trying again (dropdb -h 127.0.0.1 -p ${h.cluster.port} -U postgres ${db}).`,
        ],
        async after() {
          await waitFor('no pg_restore process left', () => processesMentioning(workDir).length === 0 || undefined, 5_000);
          await lock.release();
          await noSessionIn(db);
          expect(await h.pgRestoreRuns()).toHaveLength(1);
        },
      };
    },
    /**
     * pg_restore is done; the ANALYZE of orders (one of the parallel ones, each a session of svc's own) waits for a
     * lock on it: every ANALYZE is held on the wire (a relay in front of the cluster) until the lock is taken.
     */
    async analyze(db) {
      const gate = await wireGate(h, 'ANALYZE', 'before', { every: true });
      gates.push(gate.go);
      const via = (text: string) => text.replace(`:${h.cluster.port}/`, `:${gate.port}/`);
      let lock: { release(): Promise<void> } | undefined;
      return {
        env: h.env({ SVC_TARGET_DSN: via(h.dsn(db, true)) }),
        async reached() {
          await gate.reached();
          lock = await holdLock(h, db, 'LOCK TABLE orders IN ACCESS EXCLUSIVE MODE;', 'orders');
          gate.go();
          await lockWaiter(h, db);
        },
        says: [
          'Interrupted after pg_restore; the downloaded artifact was removed.',
          `pg_restore had finished: ${via(h.redacted(db))} is restored, but ANALYZE did not complete; run ANALYZE there before heavy use.`,
        ],
        async after() {
          await lock!.release();
          await noSessionIn(db);
          expect(await lastAnalyze(db)).toBe('never');
        },
      };
    },
    /** ANALYZE is done; the object check's catalog query (a session of svc's own) waits for a lock on pg_namespace. */
    async check(db) {
      const gate = await wireGate(h, 'convert_to(n.nspname', 'before');
      gates.push(gate.go);
      const via = (text: string) => text.replace(`:${h.cluster.port}/`, `:${gate.port}/`);
      let lock: { release(): Promise<void> } | undefined;
      return {
        env: h.env({ SVC_TARGET_DSN: via(h.dsn(db, true)) }),
        async reached() {
          await gate.reached();
          lock = await holdLock(h, db, 'LOCK TABLE pg_catalog.pg_namespace IN ACCESS EXCLUSIVE MODE;', 'pg_catalog.pg_namespace');
          gate.go();
          await lockWaiter(h, db);
        },
        says: [
          'Interrupted after pg_restore; the downloaded artifact was removed.',
          `pg_restore and ANALYZE had finished: ${via(h.redacted(db))} is restored, but the object check did not complete.`,
        ],
        async after() {
          await lock!.release();
          await noSessionIn(db);
          expect(await lastAnalyze(db)).not.toBe('never');
        },
      };
    },
  };

  const cases = Object.keys(PHASES).flatMap((phase) => SIGNALS.map((s) => ({ phase, ...s })));

  it.each(cases)('$phase, $signal: exit $code, the report names the target state, nothing left behind', async ({ phase, signal, code }) => {
    const db = `sig_${phase}_${signal}`.toLowerCase();
    const workDir = await h.workDir();
    const caught = await PHASES[phase]!(db, workDir);
    const child = spawnSvc(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: caught.env });
    await caught.reached();
    // The password file exists while the run does: its removal below is the clean-up's doing.
    expect(await h.pgpassLeftovers()).toHaveLength(1);
    child.kill(signal);
    const r = await child;
    h.record(String(r.stdout), String(r.stderr));

    expect(r.exitCode, String(r.stderr)).toBe(code);
    for (const line of caught.says) expect(r.stderr).toContain(line);
    expect(r.stderr).not.toContain('Stopped at once');
    expect(r.stdout).toBe('');
    await caught.after();
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
    expect(processesMentioning(workDir)).toEqual([]);
  });

  it.each([
    { signal: 'SIGTERM', code: 143 },
    { signal: 'SIGHUP', code: 129 },
  ] as const)('a second $signal while pg_restore is stopping: exit $code at once, no PGPASSFILE, one line on the target state', async ({ signal, code }) => {
    const db = `sig_twice_${signal}`.toLowerCase();
    await emptyDatabase(db);
    const lock = await holdLock(h, db, 'LOCK TABLE pg_catalog.pg_trigger IN SHARE MODE;', 'pg_trigger');
    const workDir = await h.workDir();
    // The shim says when svc forwarded SIGINT, and hands it on to pg_restore only once the test
    // opens the gate: svc is surely still waiting for it when the second signal comes.
    const slow = join(h.scratch, `slow-sigint-${randomInt(1e9, 1e10)}`);
    const openGate = () => writeFileSync(`${slow}.open`, '');
    gates.push(openGate);
    const child = spawnSvc(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], {
      env: h.env({ SVC_TARGET_DSN: h.dsn(db, true), SVC_TEST_SLOW_SIGINT: slow }),
    });
    await lockWaiter(h, db);
    expect(await h.pgpassLeftovers()).toHaveLength(1);
    child.kill(signal);
    await waitFor('SIGINT forwarded to pg_restore', () => existsSync(`${slow}.forwarded`), 30_000);
    expect(child.exitCode).toBeNull();
    child.kill(signal);
    const r = await child;
    openGate();
    h.record(String(r.stdout), String(r.stderr));

    expect(r.exitCode, String(r.stderr)).toBe(code);
    const lines = String(r.stderr)
      .split('\n')
      .filter((l) => l.includes('Stopped at once'));
    expect(lines).toEqual([
      `Stopped at once on a second ${signal}; the password file and temporary files were removed. The new database "${db}" may be partly restored: drop it before trying again (dropdb -h 127.0.0.1 -p ${h.cluster.port} -U postgres ${db}).`,
    ]);
    expect(r.stderr).not.toContain('Interrupted while restoring');
    expect(await h.pgpassLeftovers()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    // pg_restore, told late, still stops.
    await waitFor('no pg_restore process left', () => processesMentioning(workDir).length === 0 || undefined, 10_000);
    await lock.release();
    await noSessionIn(db);
  });

  /**
   * Ctrl-C while the new database is being created (cli-contract 4, v5): svc looks before it speaks.
   * `before`: CREATE DATABASE is held on the wire before it reaches the server, so no database exists
   * and svc says so, with no dropdb to run. `after`: the server created it and its answer is held, so
   * svc has not heard; svc finds it, and drops it as a partial database of its own.
   */
  it.each([
    {
      when: 'before',
      exists: false,
      says: (db: string, port: number) => `No database was created: "${db}" does not exist at postgresql://postgres@127.0.0.1:${port}/${db}.`,
    },
    {
      when: 'after',
      exists: false,
      says: (db: string) => `The new database "${db}", which this run created, was dropped: nothing of the partial restore is left.`,
    },
  ] as const)('SIGINT while CREATE DATABASE is sent ($when it ran): the report says what svc found', async ({ when, exists, says }) => {
    const db = `sig_creating_${when}`;
    await h.dropDatabase(db);
    const gate = await wireGate(h, 'CREATE DATABASE', when);
    gates.push(gate.go);
    const workDir = await h.workDir();
    const child = spawnSvc(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], {
      env: h.env({ SVC_TARGET_DSN: h.dsn(db, true).replace(`:${h.cluster.port}/`, `:${gate.port}/`) }),
    });
    await gate.reached();
    expect(await h.databaseExists(db)).toBe(when === 'after');
    child.kill('SIGINT');
    const r = await child;
    h.record(String(r.stdout), String(r.stderr));

    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(r.stderr).toContain(says(db, gate.port));
    expect(r.stderr).not.toContain('dropdb');
    expect(await h.databaseExists(db)).toBe(exists);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
  });
});
