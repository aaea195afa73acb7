import { InterruptedError, LocalToolError } from '../errors.js';
import type { Phase, RestorePlan } from './plan.js';
import { redactedDsn } from './target.js';

/** Phases before pg_restore touches the target. */
const BEFORE_RESTORE: ReadonlySet<Phase> = new Set(['preflight', 'createRestore', 'download', 'verify']);

/** What an interruption or failure in each phase means for the target database, said plainly. */
export function targetStateAfter(phase: Phase, plan: RestorePlan): string {
  const where = redactedDsn(plan.target);
  if (BEFORE_RESTORE.has(phase)) return `The target ${where} was not touched.`;
  if (plan.mode === 'new_database') {
    const t = plan.target;
    return `The new database "${t.database}" may be partly restored: drop it before trying again (dropdb -h ${t.host} -p ${t.port} -U ${t.user} ${t.database}).`;
  }
  if (plan.atomic) return `pg_restore ran in a single transaction, so it was rolled back: ${where} is as it was before.`;
  return `pg_restore ran with --jobs ${plan.jobs}, not in one transaction: ${where} may now be partly restored.`;
}

/** A failure of the run, with what it means for the target added where a person needs to know. */
export function explainFailure(err: unknown, phase: Phase, plan: RestorePlan, aborted: boolean): unknown {
  const state = targetStateAfter(phase, plan);
  if (err instanceof InterruptedError || aborted) {
    if (phase === 'preflight' || phase === 'createRestore') return new InterruptedError(`Interrupted before the download. ${state}`);
    const during = BEFORE_RESTORE.has(phase) ? 'during the download' : 'while restoring';
    return new InterruptedError(`Interrupted ${during}; the partial artifact was removed. ${state}`);
  }
  if (err instanceof LocalToolError && !BEFORE_RESTORE.has(phase)) {
    return new LocalToolError(`${err.message}\n${state}`, err.details.hint);
  }
  return err;
}
