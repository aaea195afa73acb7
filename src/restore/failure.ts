import { CliError, InterruptedError, LocalToolError } from '../errors.js';
import { shellCommand } from '../output/shell-quote.js';
import type { InPlaceNames } from './in-place/in-place.js';
import type { Phase, RestorePlan } from './plan.js';
import { redactedDsn } from './target/target.js';

/** Phases before pg_restore touches the target. */
const BEFORE_RESTORE: ReadonlySet<Phase> = new Set(['preflight', 'createRestore', 'download', 'verify']);

/** A dropdb command that pastes back into a shell as the same argv, aimed where the restore went. */
function dropdbCommand(t: RestorePlan['target']): string {
  // No -h for libpq's default socket: the hint must not send dropdb over TCP to localhost.
  const args = ['dropdb', ...(t.host === undefined ? [] : ['-h', t.host]), '-p', String(t.port), '-U', t.user];
  if (t.database.startsWith('-')) args.push('--');
  return shellCommand([...args, t.database]);
}

/**
 * What became of a new database this run created, when pg_restore did not finish: dropped (the
 * default), kept (--keep-partial), left because dropping it failed (with psql's reason), never
 * created (svc looked: CREATE DATABASE did not run or did not commit), or not known (the look failed).
 */
export type PartialDatabase =
  | { dropped: true }
  | { dropped: false; kept: true }
  | { dropped: false; kept: false; reason: string }
  | { dropped: false; kept: false; created: false }
  | { dropped: false; kept: false; unknown: string };

/** In place (cli-contract 7.17): until the swap the backup goes into a new database beside the target, which stays as it was. */
function besideState(plan: RestorePlan, fresh: string, partial?: PartialDatabase): string {
  const db = `"${fresh}"`;
  const untouched = `The target ${redactedDsn(plan.target)} was not touched: the backup was being restored beside it into the new database ${db}`;
  const drop = `drop it before trying again (${dropdbCommand({ ...plan.target, database: fresh })})`;
  if (partial?.dropped) return `${untouched}, which was dropped.`;
  if (partial && 'created' in partial)
    return `The target ${redactedDsn(plan.target)} was not touched, and no database was created beside it: ${db} does not exist.`;
  if (partial && 'unknown' in partial) return `${untouched}; whether it was created could not be checked (${partial.unknown}): if it exists, ${drop}.`;
  if (partial && partial.kept) return `${untouched}, which was kept as asked (--keep-partial): ${drop}.`;
  if (partial) return `${untouched}, and dropping it failed (${partial.reason}): ${drop}.`;
  return `${untouched}, which may be left behind: ${drop}.`;
}

/** Where the run restored beside the plan's target: in place, the new database's names; a drill's scratch target. */
export interface RunTarget {
  names?: InPlaceNames;
  scratch?: boolean;
}

/** What an interruption or failure in each phase means for the target database, said plainly. */
export function targetStateAfter(phase: Phase, plan: RestorePlan, partial?: PartialDatabase, { names, scratch }: RunTarget = {}): string {
  const where = redactedDsn(plan.target);
  if (BEFORE_RESTORE.has(phase)) return `The target ${where} was not touched.`;
  if (names) return besideState(plan, names.fresh, partial);
  if (phase === 'analyze') return `pg_restore had finished: ${where} is restored, but ANALYZE did not complete; run ANALYZE there before heavy use.`;
  if (phase === 'check') return `pg_restore and ANALYZE had finished: ${where} is restored, but the object check did not complete.`;
  if (plan.mode === 'new_database') {
    const db = `"${plan.target.database}"`;
    if (partial?.dropped) return `The new database ${db}, which this run created, was dropped: nothing of the partial restore is left.`;
    const drop = `drop it before trying again (${dropdbCommand(plan.target)})`;
    if (partial && 'created' in partial) return `No database was created: ${db} does not exist at ${where}.`;
    if (partial && 'unknown' in partial) return `Whether the new database ${db} was created could not be checked (${partial.unknown}): if it exists, ${drop}.`;
    if (partial && partial.kept && scratch) return `The scratch database ${db} was kept as asked (--keep); it may be partly restored.`;
    if (partial && partial.kept) return `The new database ${db} was kept as asked (--keep-partial); it may be partly restored: ${drop}.`;
    if (partial) return `The new database ${db} may be partly restored, and dropping it failed (${partial.reason}): ${drop}.`;
    return `The new database ${db} may be partly restored: ${drop}.`;
  }
  return `${where} may now be partly restored.`;
}

/** A failure of the run, with what it means for the target added where a person needs to know. */
export function explainFailure(err: unknown, phase: Phase, plan: RestorePlan, aborted: boolean, partial?: PartialDatabase, run: RunTarget = {}): unknown {
  const state = targetStateAfter(phase, plan, partial, run);
  if (err instanceof InterruptedError || aborted) {
    // The user's own "no" at the confirmation prompt says it all already.
    if (phase === 'preflight' && !aborted) return err;
    if (phase === 'preflight') return new InterruptedError(`Interrupted before the download. ${state}`);
    // The request was sent: the service may have made the job, which then stays queued.
    if (phase === 'createRestore') {
      return new InterruptedError(
        `Interrupted while the service was creating the restore job; it may exist and stay queued (svc restore get shows it). ${state}`,
      );
    }
    if (phase === 'download') return new InterruptedError(`Interrupted during the download; the partial artifact was removed. ${state}`);
    // From here on the file on disk was whole and verified.
    const during = phase === 'verify' ? 'before pg_restore started' : phase === 'restore' ? 'while restoring' : 'after pg_restore';
    return new InterruptedError(`Interrupted ${during}; the downloaded artifact was removed. ${state}`);
  }
  if (err instanceof LocalToolError && !BEFORE_RESTORE.has(phase)) {
    return new LocalToolError(`${err.message}\n${state}`, err.details.hint);
  }
  // Other sessions at the swap: exit 7 as before the download, saying what became of the new database.
  if (err instanceof CliError && err.details.code === 'target_in_use' && !BEFORE_RESTORE.has(phase)) {
    return new CliError('target_in_use', `${err.message}\n${state}`, { hint: err.details.hint });
  }
  return err;
}
