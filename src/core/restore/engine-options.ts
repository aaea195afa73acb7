import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { RestoreMode } from '../../api/schemas/restores.js';
import { UsageError } from '../../errors.js';
import { DEFAULT_CONNECTIONS, defaultJobs, MAX_CONNECTIONS, type RestorePlan } from '../../restore/plan.js';
import type { RestoreDeps } from '../../restore/run.js';
import { parseTarget, PROTECTED_DATABASES, type Target } from '../../restore/target/target.js';
import type { Session } from '../../session.js';
import { positiveInt, requireId } from '../args.js';
type Env = Record<string, string | undefined>;

/** The flags of the engine's own work, which `restore create`, `restore run` and the drill share. */
export interface LoadFlags {
  jobs?: string;
  workDir?: string;
  connections?: string;
  /** commander's --no-analyze sets this false. */
  analyze?: boolean;
}

export interface LoadOptions {
  /** --jobs as given; undefined means the default. */
  jobs: number | undefined;
  connections: number;
  workDir: string;
  analyze: boolean;
}

/** --jobs, --connections, --work-dir and --analyze, checked once for every command that runs the engine. */
export function loadOptions(flags: LoadFlags): LoadOptions {
  return {
    jobs: flags.jobs === undefined ? undefined : positiveInt(flags.jobs, '--jobs', 64),
    connections: flags.connections === undefined ? DEFAULT_CONNECTIONS : positiveInt(flags.connections, '--connections', MAX_CONNECTIONS),
    workDir: resolve(flags.workDir ?? tmpdir()),
    analyze: flags.analyze !== false,
  };
}

/** The flags `restore create` and `restore run` share (cli-contract 7). */
export interface EngineFlags extends LoadFlags {
  target?: string;
  inPlace?: boolean;
  confirm?: boolean;
  keepArtifact?: boolean;
  receipt?: string;
  keepPartial?: boolean;
  /** commander's --no-tablespaces sets this false. */
  tablespaces?: boolean;
  databaseSettings?: boolean;
  terminateConnections?: boolean;
  dropPrevious?: boolean;
}

export interface EngineOptions extends LoadOptions {
  target: Target;
  /** The raw --target or SVC_TARGET_DSN: a secret whenever it carries a password. */
  rawTarget: string;
  /** The password came on the command line, where `ps` shows it: worth a warning. */
  passwordInArgv: boolean;
  inPlace: boolean | undefined;
  confirm: boolean;
  keepArtifact: boolean;
  /** --receipt, made absolute. */
  receiptPath: string | undefined;
  keepPartial: boolean;
  noTablespaces: boolean;
  databaseSettings: boolean;
  terminateConnections: boolean;
  dropPrevious: boolean;
}

/** Every local check of the engine flags; the target is parsed here, so a bad one is exit 2 before anything runs. */
export function engineOptions(flags: EngineFlags, env: Env): EngineOptions {
  const rawTarget = flags.target ?? env.SVC_TARGET_DSN;
  if (!rawTarget) {
    throw new UsageError('No restore target given.', 'Pass --target postgresql://user@host:5432/dbname, or set SVC_TARGET_DSN.');
  }
  const target = parseTarget(rawTarget, env);
  if (PROTECTED_DATABASES.has(target.database)) {
    throw new UsageError(`Refusing to restore into the system database "${target.database}".`, 'Name another database in --target.');
  }
  return {
    target,
    rawTarget,
    passwordInArgv: flags.target !== undefined && target.password !== undefined,
    inPlace: flags.inPlace,
    confirm: flags.confirm === true,
    ...loadOptions(flags),
    keepArtifact: flags.keepArtifact === true,
    receiptPath: flags.receipt === undefined ? undefined : resolve(requireId(flags.receipt, '--receipt')),
    keepPartial: flags.keepPartial === true,
    noTablespaces: flags.tablespaces === false,
    databaseSettings: flags.databaseSettings === true,
    terminateConnections: flags.terminateConnections === true,
    dropPrevious: flags.dropPrevious === true,
  };
}

/** The run's plan for a mode: in place restores beside the target like a new database, so --jobs applies alike (cli-contract 7.17). */
export function restorePlan(opts: EngineOptions, mode: RestoreMode, session: Session): RestorePlan {
  return {
    target: opts.target,
    mode,
    jobs: opts.jobs ?? defaultJobs(),
    workDir: opts.workDir,
    keepArtifact: opts.keepArtifact,
    confirm: opts.confirm,
    interactive: session.ctx.stdinIsTTY && session.ctx.stderrIsTTY,
    connections: opts.connections,
    analyze: opts.analyze,
    receiptPath: opts.receiptPath,
    keepPartial: opts.keepPartial,
    noTablespaces: opts.noTablespaces,
    databaseSettings: opts.databaseSettings,
    terminateConnections: opts.terminateConnections,
    dropPrevious: opts.dropPrevious,
  };
}

/**
 * A drill's plan for one scratch target (cli-contract 9): a new database, never kept whole by the
 * engine but by --keep, every object in the default tablespace.
 */
export function scratchPlan(opts: LoadOptions & { parallel: number; keep: boolean }, target: Target): RestorePlan {
  return {
    target,
    mode: 'new_database',
    // The CPUs are shared by the databases drilled at once: --parallel 2 on 4 CPUs restores each with 2 jobs.
    jobs: opts.jobs ?? Math.max(1, Math.floor(defaultJobs() / opts.parallel)),
    workDir: opts.workDir,
    keepArtifact: false,
    confirm: false,
    interactive: false,
    connections: opts.connections,
    analyze: opts.analyze,
    receiptPath: undefined,
    keepPartial: opts.keep,
    // A scratch cluster has no tablespace of the source's: a drill proves the data, not the disk layout (cli-contract 7.12).
    noTablespaces: true,
  };
}

/** Registers the target's secrets with the scrubber, and warns about a password in argv. */
export function guardTarget(opts: EngineOptions, session: Session): void {
  // The raw URI is a secret only when it carries a password; without one it is the redacted form
  // itself. The password alone is not registered: it may be a common word ("postgres", "true") that
  // output holds for other reasons; the scrubber removes it where it stands as a credential.
  if (opts.target.password !== undefined) session.secrets.add(opts.rawTarget);
  if (opts.passwordInArgv) {
    session.ui.warn('The password in --target is visible to other local users in the process list; prefer SVC_TARGET_DSN, PGPASSWORD or ~/.pgpass.');
  }
}

export function restoreDeps(session: Session): RestoreDeps {
  const { ctx, settings } = session;
  return {
    signal: ctx.signal,
    sleep: ctx.sleep,
    random: ctx.random,
    now: ctx.now,
    reporter: session.ui,
    scrubber: session.secrets,
    http: { maxRetries: settings.maxRetries, timeoutMs: settings.timeoutMs, env: ctx.env },
    env: ctx.env,
    prompter: ctx.prompter,
  };
}
