import { chmod, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { http } from 'msw';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ResultPromise } from 'execa';
import { ensureBuilt, spawnSvc } from '../support/built-cli.js';
import { autoScratchServer, drillApi, drillProcesses, DRILLED, requestsTo, scratchPassword, SECOND, serverBindir, toolGate } from '../support/drill-signals.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { DSN_PASSWORD, RestoreHarness, waitFor } from '../support/restore-harness.js';
import { ANALYZE_LOCK_SQL, clusterServer, holdLock, lockWaiter, releaseAll, statementsWaiting, type SqlServer } from '../support/restore-signals.js';
import { expectNoSecretsLeft, leaksIn } from '../support/secret-scan.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-signals-phases-*.test.ts skipped: ${skip}`);

const SIGNALS = [
  { signal: 'SIGINT', code: 130 },
  { signal: 'SIGTERM', code: 143 },
  { signal: 'SIGHUP', code: 129 },
] as const;

type Scratch = 'auto' | 'dsn';

/** A drill run to be caught in one phase. */
interface Caught {
  /** Extra environment and arguments for svc. */
  env?: Record<string, string>;
  args?: string[];
  /** svc has a client tool (psql, pg_restore) running when the phase is reached. */
  tool?: true;
  /** Resolves once svc is surely inside the phase. */
  reached(run: { stderr: () => Promise<string>; server: () => Promise<SqlServer> }): Promise<unknown>;
  /** Right after the signal: lets go what svc waits for and does not cancel (it is not told to stop). */
  afterSignal?(): Promise<void>;
  /** The phase's own evidence, after svc exited. */
  after?(): Promise<void>;
}

/**
 * SIGINT, SIGTERM and SIGHUP in each phase of `svc restore drill`, against the built CLI and real
 * PostgreSQL (cli-contract 9, step 5): the exit code of the signal, every scratch database dropped,
 * the scratch cluster stopped (no postgres process of the run outlives svc, nor any psql or
 * pg_restore it started), nothing left in the work dir, no PGPASSFILE, no secret in any output.
 * With `--scratch auto` the run's own cluster; with `--scratch <dsn>` the harness's cluster stands
 * for an operator's server, on which no svc_drill_* database may remain.
 */
/**
 * Which of the cases a test file runs: the suite is one definition, run as three files so that its
 * cases (each a drill caught in a phase, about 2 s apiece) spread over the run's workers.
 */
export type SignalPhasesPart = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export function drillSignalPhases(part: SignalPhasesPart): void {
  describe.skipIf(!!skip)(`a signal in each phase of a drill (built CLI as a subprocess, real PostgreSQL): ${part} and its share`, () => {
    const h = new RestoreHarness();

    beforeAll(async () => {
      await Promise.all([ensureBuilt(), h.start()]);
      // The scratch cluster runs as `postgres` when the tests run as root: it must reach the work dirs and gates below.
      await chmod(h.scratch, 0o711);
    }, 300_000);
    afterAll(() => h.stop());
    beforeEach(async () => {
      await h.reset();
      drillApi(h);
    });
    afterEach(() => releaseAll());
    /** The runs of the current test: whatever a failed one left running is ended, so the next starts clean. */
    const runs: Array<{ child: ResultPromise; dir: string; tmp: string }> = [];
    afterEach(async () => {
      for (const run of runs.splice(0)) {
        run.child.kill('SIGKILL');
        await run.child.catch(() => undefined);
        for (const p of drillProcesses(run.dir, run.tmp)) {
          try {
            process.kill(Number(p.split(' ')[0]), 'SIGKILL');
          } catch {
            // Gone already.
          }
        }
      }
    });
    function drill(args: string[], dir: string, tmp: string, env: Record<string, string>): ResultPromise {
      const child = spawnSvc(['restore', 'drill', DRILLED, '--work-dir', dir, ...args], { env: h.env({ TMPDIR: tmp, ...env }), timeoutMs: 60_000 });
      runs.push({ child, dir, tmp });
      return child;
    }

    const dsnServer = () => clusterServer(h.cluster);
    const leftoverDatabases = async () =>
      (await h.cluster.psql("SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'svc\\_drill\\_%'")).split(',').filter(Boolean);
    const restoredName = async (stderr: () => Promise<string>) => /restore into (svc_drill_\w+)/.exec(await stderr())![1]!;
    /** The restore's pg_restore (not the listing, nor the count) runs, then waits before it exits until go(): the database is restored, svc has not heard. */
    async function restoreDone() {
      const gate = await toolGate(
        h,
        'pg_restore',
        join(h.shimDir, 'pg_restore'),
        '[ "$1" != --version ] && [ "$1" != -l ] && [ "$1" != --data-only ] && [ "$1" != --create ]',
        false,
        true,
      );
      return {
        env: gate.env,
        go: () => gate.go(),
        async reachedIn(stderr: () => Promise<string>) {
          await gate.reached();
          return restoredName(stderr);
        },
      };
    }

    async function workDir(): Promise<string> {
      const dir = await mkdtemp(join(h.scratch, 'work-'));
      await chmod(dir, 0o711);
      return dir;
    }
    const pgpassLeftovers = async (tmp: string) => (await readdir(tmp)).filter((n) => n.startsWith('svc-pgpass-'));

    const PHASES: Record<string, (scratch: Scratch, dir: string, tmp: string) => Promise<Caught>> = {
      /** initdb of the scratch cluster waits at a gate. */
      async cluster() {
        const bindir = await serverBindir(h, { initdb: true });
        return { env: { SVC_PG_BINDIR: bindir.dir }, reached: () => bindir.initdb!.reached() };
      },
      /** listDatabaseBackups never answers; the backup is chosen while the cluster starts, so the signal waits for both. */
      async selection(scratch, _dir, tmp) {
        const path = `/api/v1/databases/${DRILLED}/backups`;
        h.api.use(http.get(`*${path}`, () => new Promise<never>(() => {})));
        return {
          reached: async () => {
            await waitFor('the listDatabaseBackups request', () => requestsTo(h, 'GET', path).length === 1 || undefined);
            if (scratch === 'auto') await waitFor("the scratch cluster's password", () => scratchPassword(tmp), 60_000);
          },
          async after() {
            expect(h.createRestoreRequests()).toEqual([]);
          },
        };
      },
      /** createRestore never answers. */
      async createRestore() {
        h.api.use(http.post('*/api/v1/restores', () => new Promise<never>(() => {})));
        return {
          reached: () => waitFor('the createRestore request', () => h.createRestoreRequests().length === 1 || undefined),
          async after() {
            expect(h.allArtifactRequests()).toEqual([]);
          },
        };
      },
      /** The artifact trickles in. */
      async download(_scratch, dir) {
        h.artifact.setMode({ slow: { bytesPerChunk: 2048, delayMs: 60 } });
        return {
          reached: () =>
            waitFor('a partial artifact on disk', async () => {
              for (const run of (await readdir(dir)).filter((n) => n.startsWith('svc-restore-'))) {
                const size = await stat(join(dir, run, 'artifact.dump')).then(
                  (s) => s.size,
                  () => 0,
                );
                if (size > 0 && size < h.info.sizeBytes) return true;
              }
              return undefined;
            }),
          async after() {
            expect(await h.pgRestoreRuns()).toEqual([]);
          },
        };
      },
      /** `pg_restore -l` (the archive's table of contents) waits at a gate; svc does not stop it, it is let go after the signal. */
      async verify() {
        const gate = await toolGate(h, 'pg_restore', join(h.shimDir, 'pg_restore'), '[ "$1" = -l ]');
        return {
          env: gate.env,
          tool: true,
          reached: () => gate.reached(),
          afterSignal: () => gate.go(),
          async after() {
            expect(await h.pgRestoreRuns()).toEqual([]);
          },
        };
      },
      /** pg_restore runs and waits for a lock on pg_trigger (the foreign key's triggers), held in the scratch database. */
      async restore(scratch) {
        const gate = await toolGate(
          h,
          'pg_restore',
          join(h.shimDir, 'pg_restore'),
          '[ "$1" != --version ] && [ "$1" != -l ] && [ "$1" != --data-only ] && [ "$1" != --create ]',
        );
        let lock: { release(): Promise<void> } | undefined;
        return {
          env: gate.env,
          tool: true,
          async reached({ stderr, server }) {
            await gate.reached();
            const db = await restoredName(stderr);
            lock = await holdLock(await server(), db, 'LOCK TABLE pg_catalog.pg_trigger IN SHARE MODE;', 'pg_trigger');
            await gate.go();
            await lockWaiter(await server(), db);
          },
          async after() {
            await lock!.release();
            expect(await h.pgRestoreRuns()).toHaveLength(1);
            if (scratch === 'dsn') expect(await h.cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE datname LIKE 'svc\\_drill\\_%'")).toBe('0');
          },
        };
      },
      /** The restore goes on while the second pg_restore, which counts the archive's rows for rows_match, waits at a gate. */
      async counting() {
        const gate = await toolGate(h, 'pg_restore', join(h.shimDir, 'pg_restore'), '[ "$1" = --data-only ]');
        return { env: gate.env, tool: true, reached: () => gate.reached() };
      },
      /**
       * pg_restore is done; both ANALYZE sessions (--jobs 2: two groups of tables, each a session of svc's own) wait for
       * the lock on every table, taken while the restore's pg_restore had run and not yet exited.
       */
      async analyze() {
        const gate = await restoreDone();
        let lock: { release(): Promise<void> } | undefined;
        return {
          env: gate.env,
          args: ['--jobs', '2'],
          async reached({ stderr, server }) {
            const db = await gate.reachedIn(stderr);
            const s = await server();
            lock = await holdLock(s, db, ANALYZE_LOCK_SQL, 'customers');
            await gate.go();
            await statementsWaiting(s, 'both ANALYZE sessions waiting for the lock on their tables', '%ANALYZE%', 2);
          },
          async after() {
            await lock!.release();
          },
        };
      },
      /**
       * ANALYZE is done; the object check's catalog query waits for a lock on pg_namespace, asked for while ANALYZE
       * (one session, --jobs 1) waited for the tables' lock, and granted once ANALYZE was let go and ended.
       */
      async check() {
        const gate = await restoreDone();
        let lock: { release(): Promise<void> } | undefined;
        return {
          env: gate.env,
          args: ['--jobs', '1'],
          async reached({ stderr, server }) {
            const s = await server();
            const db = await gate.reachedIn(stderr);
            const tables = await holdLock(s, db, ANALYZE_LOCK_SQL, 'customers');
            await gate.go();
            await lockWaiter(s, db);
            const namespaces = holdLock(s, db, 'LOCK TABLE pg_catalog.pg_namespace IN ACCESS EXCLUSIVE MODE;', 'pg_catalog.pg_namespace');
            // Asked for while ANALYZE's transaction still reads pg_namespace: granted only once ANALYZE has ended.
            await waitFor(
              'the lock on pg_namespace asked for',
              async () =>
                Number(await s.psql("SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND relation = 'pg_catalog.pg_namespace'::regclass")) >
                  0 || undefined,
            );
            await tables.release();
            lock = await namespaces;
            await statementsWaiting(s, "the object check's catalog query waiting for the lock on pg_namespace", '%convert_to(n.nspname%');
          },
          async after() {
            await lock!.release();
          },
        };
      },
      /** The restore passed (--no-analyze); the data check (svc's own session: no client tool runs) waits for a lock on a restored table. */
      async data() {
        const gate = await restoreDone();
        let lock: { release(): Promise<void> } | undefined;
        return {
          env: gate.env,
          args: ['--no-analyze'],
          async reached({ stderr, server }) {
            const db = await gate.reachedIn(stderr);
            lock = await holdLock(await server(), db, 'LOCK TABLE public.customers IN ACCESS EXCLUSIVE MODE;', 'customers');
            await gate.go();
            await lockWaiter(await server(), db);
          },
          async after() {
            await lock!.release();
          },
        };
      },
      /**
       * A SQL check (--check) runs: its query sleeps in the scratch database, as the run's check role
       * (svc's own connection: no client tool runs). With --scratch <dsn> that role is dropped again.
       */
      async sqlCheck(scratch, dir) {
        const file = join(dir, '..', `${dir.split('/').pop()}-checks.sql`);
        await writeFile(file, "-- check: slow_check\nSELECT x FROM (SELECT pg_sleep(300)::text AS x) s WHERE x = 'never'\n");
        return {
          args: ['--check', file],
          async reached({ server }) {
            const s = await server();
            await waitFor(
              'the SQL check running in the scratch database as the check role',
              async () =>
                (await s.psql(
                  "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg\\_sleep(300)%' AND usename LIKE 'svc\\_drill\\_check\\_%' AND pid <> pg_backend_pid()",
                )) === '1' || undefined,
            );
          },
          async after() {
            if (scratch === 'dsn') expect(await h.cluster.psql("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'svc\\_drill\\_check\\_%'")).toBe('0');
          },
        };
      },
      /**
       * Every check passed; the DROP DATABASE of the scratch database (svc's own session) waits for a lock on
       * pg_database, taken while ANALYZE (--jobs 1) waited for the tables' lock, so after the restore's
       * ALTER DATABASE, and let go after the signal (svc never cancels a clean-up).
       */
      async dropping() {
        const gate = await restoreDone();
        let lock: { release(): Promise<void> } | undefined;
        return {
          env: gate.env,
          args: ['--jobs', '1'],
          async reached({ stderr, server }) {
            const s = await server();
            const db = await gate.reachedIn(stderr);
            const tables = await holdLock(s, db, ANALYZE_LOCK_SQL, 'customers');
            await gate.go();
            await lockWaiter(s, db);
            lock = await holdLock(s, 'postgres', 'LOCK TABLE pg_catalog.pg_database IN SHARE MODE;', 'pg_catalog.pg_database');
            await tables.release();
            await statementsWaiting(s, 'DROP DATABASE waiting for the lock on pg_database', 'DROP DATABASE%');
          },
          afterSignal: () => lock!.release(),
        };
      },
    };

    const phases = Object.keys(PHASES);
    const cases = [
      ...phases.flatMap((phase) => SIGNALS.map((s) => ({ phase, scratch: 'auto' as Scratch, ...s }))),
      // An operator's server: every phase once (the signals in turn), the restore itself with each signal.
      ...phases
        .filter((p) => p !== 'cluster')
        .flatMap((phase, i) => (phase === 'restore' ? SIGNALS : [SIGNALS[i % SIGNALS.length]!]).map((s) => ({ phase, scratch: 'dsn' as Scratch, ...s }))),
    ];

    // This file's signal, on the run's own cluster and on an operator's server.
    const mine = cases.filter((c) => c.signal === part);
    it.each(mine)(
      '$phase, --scratch $scratch, $signal: exit $code, scratch database and cluster gone, nothing left',
      async ({ phase, scratch, signal, code }) => {
        const dir = await workDir();
        // This run's own TMPDIR: its PGPASSFILEs, and through them its child processes, are told apart from any other run's.
        const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
        const caught = await PHASES[phase]!(scratch, dir, tmp);
        const scratchArgs = scratch === 'dsn' ? ['--scratch', h.dsn('postgres', true)] : [];
        const child = drill([...scratchArgs, ...(caught.args ?? [])], dir, tmp, { SVC_PG_BINDIR: h.cluster.serverBinDir, ...caught.env });
        let stderr = '';
        child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        await caught.reached({
          stderr: async () => stderr,
          server: () => (scratch === 'auto' ? autoScratchServer(h, dir) : Promise.resolve(dsnServer())),
        });
        // What the run has going (its cluster, its client tools) is visible to the checks below: they could fail.
        if (scratch === 'auto' || caught.tool) expect(drillProcesses(dir, tmp)).not.toEqual([]);
        const password = scratch === 'auto' ? await scratchPassword(tmp) : DSN_PASSWORD;
        // While initdb runs the cluster has no password yet (it is set once the server is up).
        if (phase !== 'cluster') expect(password).toBeDefined();
        const passwords = password ? [password] : [];
        child.kill(signal);
        await caught.afterSignal?.();
        const r = await child;
        h.record(String(r.stdout), String(r.stderr));

        expect(r.exitCode, String(r.stderr)).toBe(code);
        expect(r.stderr).not.toContain('Stopped at once');
        expect(r.stdout).toBe('');
        expect(drillProcesses(dir, tmp)).toEqual([]);
        expect(await readdir(dir)).toEqual([]);
        expect(await pgpassLeftovers(tmp)).toEqual([]);
        expect(await leftoverDatabases()).toEqual([]);
        await caught.after?.();
        expect(leaksIn(`${r.stdout}\n${r.stderr}`, { dsnPasswords: passwords })).toEqual([]);
        await expectNoSecretsLeft(
          { texts: [String(r.stdout), String(r.stderr)], paths: [h.scratch] },
          { ...h.secretSet(), dsnPasswords: [DSN_PASSWORD, ...passwords] },
        );
      },
    );

    if (part === 'SIGHUP') defineLast();

    function defineLast(): void {
      it.each(SIGNALS)(
        'a second signal ($signal) while the scratch cluster stops: exit $code at once, and still no postmaster left',
        async ({ signal, code }) => {
          const dir = await workDir();
          const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
          const bindir = await serverBindir(h, { stop: true });
          h.api.use(http.post('*/api/v1/restores', () => new Promise<never>(() => {})));
          const child = drill([], dir, tmp, { SVC_PG_BINDIR: bindir.dir });
          await waitFor('the createRestore request', () => h.createRestoreRequests().length === 1 || undefined);
          const password = await scratchPassword(tmp);
          child.kill('SIGINT');
          // The clean-up has reached `pg_ctl stop`, which waits at its gate: the postmaster still runs.
          await bindir.stop!.reached();
          expect(drillProcesses(dir, tmp).filter((p) => / -D \S+\/data -c listen_addresses/.test(p))).toHaveLength(1);
          child.kill(signal);
          const r = await child;
          h.record(String(r.stdout), String(r.stderr));

          expect(r.exitCode, String(r.stderr)).toBe(code);
          expect(
            String(r.stderr)
              .split('\n')
              .filter((l) => l.includes('Stopped at once')),
          ).toEqual([`Stopped at once on a second ${signal}.`]);
          // svc left at once; the postmaster it told to quit on the way out goes a moment later.
          await waitFor('no process of the drill left', () => drillProcesses(dir, tmp).length === 0 || undefined, 10_000).catch(() => undefined);
          expect(drillProcesses(dir, tmp)).toEqual([]);
          expect(await readdir(dir)).toEqual([]);
          expect(await pgpassLeftovers(tmp)).toEqual([]);
          await expectNoSecretsLeft(
            { texts: [String(r.stdout), String(r.stderr)], paths: [h.scratch] },
            { ...h.secretSet(), dsnPasswords: [DSN_PASSWORD, password] },
          );
        },
      );

      it('SIGTERM once the drill passed, while the scratch cluster stops: exit 143 all the same, and no postmaster left', async () => {
        const dir = await workDir();
        const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
        const bindir = await serverBindir(h, { stop: true });
        const child = drill([], dir, tmp, { SVC_PG_BINDIR: bindir.dir });
        // `pg_ctl stop` runs only in the run's last clean-up, after every database's drill and its drop.
        await bindir.stop!.reached();
        child.kill('SIGTERM');
        await bindir.stop!.go();
        const r = await child;
        h.record(String(r.stdout), String(r.stderr));

        expect(String(r.stderr)).toMatch(/: passed: recovery time/);
        expect(r.exitCode, String(r.stderr)).toBe(143);
        expect(String(r.stderr)).toContain('The drill was interrupted; the scratch cluster was stopped and removed');
        expect(drillProcesses(dir, tmp)).toEqual([]);
        expect(await readdir(dir)).toEqual([]);
        expect(await pgpassLeftovers(tmp)).toEqual([]);
      });

      it('--dry-run, SIGTERM while a backup is being selected: exit 143, and no plan printed as if it were whole', async () => {
        const dir = await workDir();
        const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
        const path = `/api/v1/databases/${DRILLED}/backups`;
        h.api.use(http.get(`*${path}`, () => new Promise<never>(() => {})));
        const child = drill(['--dry-run', '--json'], dir, tmp, {});
        await waitFor('the listDatabaseBackups request', () => requestsTo(h, 'GET', path).length === 1 || undefined);
        child.kill('SIGTERM');
        const r = await child;
        h.record(String(r.stdout), String(r.stderr));
        expect(r.exitCode, String(r.stderr)).toBe(143);
        expect(r.stdout).toBe('');
        expect(JSON.parse(String(r.stderr).trim().split('\n').pop()!)).toMatchObject({ error: { code: 'interrupted' } });
        expect(await readdir(dir)).toEqual([]);
      });

      it('--parallel 2 on an operator server, SIGTERM while both databases restore: exit 143, both scratch databases dropped', async () => {
        const dir = await workDir();
        const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
        const gate = await toolGate(
          h,
          'pg_restore',
          join(h.shimDir, 'pg_restore'),
          '[ "$1" != --version ] && [ "$1" != -l ] && [ "$1" != --data-only ] && [ "$1" != --create ]',
          true,
        );
        const child = drill([SECOND.databaseId, '--parallel', '2', '--scratch', h.dsn('postgres', true)], dir, tmp, gate.env);
        let stderr = '';
        child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        await gate.reached(2);
        const dbs = [...stderr.matchAll(/restore into (svc_drill_\w+)/g)].map((m) => m[1]!);
        const server = dsnServer();
        const locks = await Promise.all(dbs.map((db) => holdLock(server, db, 'LOCK TABLE pg_catalog.pg_trigger IN SHARE MODE;', 'pg_trigger')));
        await gate.go();
        for (const db of dbs) await lockWaiter(server, db);
        expect((await leftoverDatabases()).sort()).toEqual([...dbs].sort());
        child.kill('SIGTERM');
        const r = await child;
        h.record(String(r.stdout), String(r.stderr));

        expect(r.exitCode, String(r.stderr)).toBe(143);
        expect(drillProcesses(dir, tmp)).toEqual([]);
        for (const lock of locks) await lock.release();
        expect(await leftoverDatabases()).toEqual([]);
        expect(await h.pgRestoreRuns()).toHaveLength(2);
        expect(await readdir(dir)).toEqual([]);
        expect(await pgpassLeftovers(tmp)).toEqual([]);
        await expectNoSecretsLeft({ texts: [String(r.stdout), String(r.stderr)], paths: [h.scratch] }, h.secretSet());
      });
    }
  });
}
