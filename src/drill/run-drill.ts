import { existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import type { ApiClient } from '../api/client.js';
import { getProfile } from '../api/operations/profile.js';
import { CliError, ERROR_CODES } from '../errors.js';
import { exitCodeForSignal } from '../exit-codes.js';
import { mapPool } from '../pool.js';
import type { SelectionRule } from '../restore/select/backup-selection.js';
import { findClientTools } from '../restore/target/pg-restore-choice.js';
import { pathDirs, programsIn } from '../restore/target/pg-install.js';
import { scratchPlan, type LoadOptions } from '../core/restore/engine-options.js';
import type { RestoreDeps } from '../restore/run.js';
import { RunScope } from '../restore/scope.js';
import type { Target } from '../restore/target/target.js';
import { readBaseline } from './baseline.js';
import type { DatabaseDrill, DrillDocument } from './document.js';
import type { DriftLimits } from './drift.js';
import { humanSeconds } from './duration.js';
import { DrillInterrupted, drillDocument, notRun } from './run-document.js';
import { drillDatabase } from './drill-database.js';
import { dryRunLine } from './dry-run.js';
import { reapOrphans } from './orphans.js';
import { progressLines, type ProgressSink } from './progress-lines.js';
import type { IsolationMode } from './isolation.js';
import { preflight } from './preflight.js';
import { autoScratch, dsnScratch, type Scratch } from './scratch.js';
import type { Shard } from './shard.js';
import { databasesOf } from './databases.js';
import { readChecks } from './sql-checks.js';

type Env = Record<string, string | undefined>;

export interface DrillOptions extends LoadOptions {
  /** The ids given (each once), or every database of the organization. */
  databases: string[] | 'all';
  /** Each database's backup: --backup <id> (one database only), else --before, else the newest. */
  rule: (databaseId: string) => SelectionRule;
  scratch: { kind: 'auto'; pgBindir?: { dir: string; flag: string } } | { kind: 'dsn'; server: Target };
  checkFiles: string[];
  maxAgeSeconds?: number;
  parallel: number;
  shard?: Shard;
  reportDir?: string;
  keep: boolean;
  /** Fail restore_clean when an unprivileged restore had to leave objects out (cli-contract 7.14). */
  strict?: boolean;
  dryRun: boolean;
  /** rows_match (off with --no-rows-check): the archive's rows are counted alongside each restore. */
  rowsCheck: boolean;
  /** --baseline (a drill.json or the report dir holding one) and no_drift's limits (cli-contract 9.17). */
  baseline?: string;
  drift: DriftLimits;
  /** --deadline: no database is started once this many seconds have passed since the run began (9.18). */
  deadlineSeconds?: number;
  /** --isolation: `required` refuses a scratch cluster that could see svc's processes (cli-contract 9.16). */
  isolation: IsolationMode;
}

/** What a drill needs from the command around it: the API, the restore engine's dependencies, progress on stderr. */
export interface DrillHost extends ProgressSink {
  api: () => Promise<ApiClient>;
  deps: Omit<RestoreDeps, 'onPhase'>;
  now: () => Date;
  /** Told once the scratch server is known (its directory, binaries): for the plan and --keep. */
  note: (text: string) => void;
}

const RESTORE_SCOPE = 'restores:write';
/** Databases read at once, in a dry run, for their backups. */
const READS = 8;

async function assertMayRestore(api: ApiClient): Promise<void> {
  const { data } = await api.send(getProfile());
  if (!data.profile.scopes.includes(RESTORE_SCOPE)) {
    throw new CliError('missing_scope', `This API key cannot create restores (it lacks ${RESTORE_SCOPE}), so it cannot run a drill.`, {
      requiredScope: RESTORE_SCOPE,
    });
  }
}

const hasClientTools = (dir: string) => existsSync(join(dir, 'pg_restore')) && existsSync(join(dir, 'psql'));

/** PATH's psql and pg_restore are Debian's postgresql-common wrapper (not a tool of the user's own). */
function wrapped(env: Env): boolean {
  return ['psql', 'pg_restore'].every((tool) => {
    const [first] = programsIn(tool, pathDirs(env));
    try {
      return first !== undefined && basename(realpathSync(first)) === 'pg_wrapper';
    } catch {
      return false;
    }
  });
}

/**
 * A restore drill (cli-contract 9): per database, the restore engine pointed at a throwaway scratch
 * database, then checks; --parallel databases at once in one scratch cluster, started once and
 * stopped in this function's finally, as every scratch database is dropped, whatever fails or
 * whichever signal arrives.
 */
export async function runDrill(opts: DrillOptions, host: DrillHost): Promise<DrillDocument> {
  const startedAt = host.now();
  const checks = await readChecks(opts.checkFiles);
  const baseline = opts.baseline === undefined ? undefined : await readBaseline(opts.baseline);
  const deadlineAt = opts.deadlineSeconds === undefined ? undefined : startedAt.getTime() + opts.deadlineSeconds * 1000;
  const { binaries, isolation } = await preflight(opts, host.deps.env, host.note);
  // Where PATH's client tools are Debian's pg_wrapper (a Perl process per call, which then runs the
  // newest installed version), the restores and checks run the scratch server's own tools directly.
  const env =
    binaries && hasClientTools(binaries.dir) && wrapped(host.deps.env)
      ? { ...host.deps.env, PATH: `${binaries.dir}${delimiter}${host.deps.env.PATH ?? ''}` }
      : host.deps.env;
  const deps = { ...host.deps, env };
  const scope = new RunScope();
  let keptAny = false;
  const lines = progressLines(host);
  const depsForScratch = { env, scope, scrubber: host.deps.scrubber, signal: host.deps.signal, note: host.note };
  // The scratch server is readied while the service is asked which databases and backups: neither
  // waits for the other. A dry run starts no cluster, but does check an operator's server.
  // What killed runs left (cli-contract 9.12) goes before this run starts its own; a dry run touches nothing.
  const reaped = opts.dryRun ? Promise.resolve() : reapOrphans(opts, depsForScratch, host.note);
  const where = opts.scratch;
  let copying = () => {};
  const copyStarted = new Promise<void>((resolve) => (copying = resolve));
  const starting: Promise<Scratch> | undefined =
    where.kind === 'dsn'
      ? reaped.then(() => dsnScratch(where.server, depsForScratch))
      : opts.dryRun
        ? undefined
        : reaped.then(() => autoScratch(binaries!, isolation!, opts.workDir, { ...depsForScratch, copying }));
  starting?.catch(() => {});
  // What a signal leaves for the report (cli-contract 9.18): every database, those finished with their results.
  let databases: Array<{ id: string; name: string | null }> = [];
  const finished = new Map<string, DatabaseDrill>();
  let interrupted: DrillInterrupted | undefined;
  let serverVersion: string | null = binaries?.version ?? null;
  const facts = () => ({
    startedAt,
    finishedAt: host.now(),
    shard: opts.shard ? `${opts.shard.index}/${opts.shard.count}` : null,
    scratch: opts.scratch.kind,
    serverVersion,
    isolation: isolation?.level ?? null,
  });
  try {
    // The cluster's files are copied by a child process: it starts before this one loads the API client.
    if (where.kind === 'auto' && starting)
      await Promise.race([
        copyStarted,
        starting.then(
          () => undefined,
          () => undefined,
        ),
      ]);
    // The client tools, while the cluster starts: both are needed before any createRestore.
    await findClientTools(env);
    const api = await host.api();
    await assertMayRestore(api);
    databases = await databasesOf(api, opts);
    const { rule } = opts;
    let drilled: DatabaseDrill[];
    if (opts.dryRun || !starting) {
      const scratch = await starting;
      serverVersion = scratch?.serverVersion ?? serverVersion;
      drilled = await mapPool(databases, READS, (db) => dryRunLine(api, db, rule(db.id), host.now()));
    } else {
      // The first databases' backups are chosen while the server starts; each drill then waits for it.
      const scratch = starting.then((ready) => {
        serverVersion = ready.serverVersion;
        if (ready.privilegeNote) host.note(ready.privilegeNote);
        return ready;
      });
      scratch.catch(() => {});
      drilled = await mapPool(databases, opts.parallel, async (db) => {
        if (deadlineAt !== undefined && host.now().getTime() >= deadlineAt) {
          const message = `Not started: --deadline ${humanSeconds(opts.deadlineSeconds!)} had passed since the run began.`;
          lines.progress(db.id, `not run: ${message}`);
          return notRun(db, 'deadline', 'deadline_reached', ERROR_CODES.deadline_reached.exit, message);
        }
        const drilled = await drillDatabase(
          {
            api,
            scratch,
            rule,
            checks,
            maxAgeSeconds: opts.maxAgeSeconds,
            rowsCheck: opts.rowsCheck,
            baseline,
            drift: opts.drift,
            keep: opts.keep,
            strict: opts.strict === true,
            now: host.now,
            progress: lines.progress,
            command: host.command,
            deps,
            onKept: () => (keptAny = true),
            plan: (target) => scratchPlan(opts, target),
          },
          db,
        ).finally(() => lines.finish(db.id));
        finished.set(db.id, drilled);
        return drilled;
      });
      // A server that did not start fails the run as before, also where no database got as far as needing it.
      await scratch;
    }
    // A signal that came while the last scratch database was dropped (or a dry run's selection, which
    // records it as that database's failure) ends the run all the same, as interrupted.
    if (host.deps.signal.aborted) throw new Error('interrupted');
    return drillDocument(facts(), drilled);
  } catch (err) {
    if (!host.deps.signal.aborted) throw err;
    throw interruptedRun();
  } finally {
    lines.stop();
    // A cluster that started is stopped, even when the run failed before it was needed.
    const scratch = await starting?.catch(() => undefined);
    // --keep keeps the cluster of the databases it kept; one that holds none is of no use to anyone.
    await scratch?.dispose(keptAny && !host.deps.signal.aborted);
    await scope.dispose();
    // A signal handled only once the work was done, as the cluster stopped (it can be sent while the last
    // drop runs and still be read after it): the run ends as interrupted all the same, its clean-up done.
    if (host.deps.signal.aborted && !interrupted) throw interruptedRun();
  }

  function interruptedRun(): DrillInterrupted {
    const signal = String(host.deps.signal.reason);
    const message = `Interrupted (${signal}) before this database's drill finished.`;
    const code = exitCodeForSignal(host.deps.signal.reason);
    const doc = drillDocument(
      facts(),
      databases.map((db) => finished.get(db.id) ?? notRun(db, 'interrupted', 'interrupted', code, message)),
    );
    const cleanUp = opts.scratch.kind === 'auto' ? 'the scratch cluster was stopped and removed' : "this run's svc_drill_* databases were dropped";
    interrupted = new DrillInterrupted(`The drill was interrupted; ${cleanUp} (a database that could not be dropped is named above).`, doc);
    return interrupted;
  }
}
