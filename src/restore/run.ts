import { isCliError } from '../errors.js';
import { setExitNote } from '../exit-note.js';
import { exitCodeForSignal } from '../exit-codes.js';
import { UserFiles } from '../output/user-file.js';
import { countArchiveRows, type ArchiveRowCount } from './archive/archive-rows.js';
import { hasTableData } from './archive/toc.js';
import { verifyPhase } from './archive/verify-phase.js';
import { createPhase, downloadPhase } from './download/download-phase.js';
import { explainFailure, targetStateAfter } from './failure.js';
import { swapIn } from './in-place/in-place-swap.js';
import { freshPlan, inPlaceNames } from './in-place/in-place.js';
import { checkPhases, restorePhase } from './load/load-phase.js';
import { settlePartial } from './load/partial-database.js';
import { PhaseClock } from './phase-clock.js';
import type { RestorePlan } from './plan.js';
import { buildReceipt, writeReceipt, type Receipt } from './receipt.js';
import type { RunContext } from './run-context.js';
import type { RestoreDeps, RestoreFailure, RestoreOutcome, RestoreResult, RestoreSource, ScratchRestore } from './run-types.js';
import { RunScope } from './scope.js';
import { confirmInPlace } from './target/confirm.js';
import { preflightPhase } from './target/preflight-phase.js';
import { redactedDsn } from './target/target.js';

export type { RestoreDeps, RestoreFailure, RestoreOutcome, RestoreResult, RestoreSource, ScratchRestore, ServiceCheck } from './run-types.js';

/**
 * The one local restore run (cli-contract 7), phase by phase: preflight and the service's word on the
 * backup, the in-place confirmation, createRestore, download, verify, restore, analyze, check, and in
 * place the swap. It returns the outcome or the phase that failed, each with its receipt; it creates
 * and disposes the PGPASSFILE, every temp dir and a partial new database exactly once, in its own
 * catch and finally, whatever fails or whichever signal arrives. The presigned URL and lock token stay
 * in memory: never printed, logged or written. `scratch`: a drill's options beside the plan.
 */
export async function runRestore(plan: RestorePlan, source: RestoreSource, deps: RestoreDeps, scratch?: ScratchRestore): Promise<RestoreResult> {
  const startedAt = deps.now();
  // In place, the backup is restored into a new database beside the target, swapped in at the end (cli-contract 7.17).
  const names = plan.mode === 'in_place' ? inPlaceNames(plan.target.database, startedAt) : undefined;
  const where = { names, scratch: scratch !== undefined };
  const clock = new PhaseClock((phase) => {
    // Should a second signal end the process mid-phase, it still says what state the target is in.
    setExitNote(targetStateAfter(phase, plan, undefined, where));
    deps.onPhase?.(phase);
  });
  const ctx: RunContext = {
    plan,
    into: names ? freshPlan(plan, names) : plan,
    names,
    scratch,
    deps,
    clock,
    scope: new RunScope(),
    facts: {},
    pgEnv: {},
    creation: undefined,
  };
  const dryRun = !source.create && !source.created;
  let failure: RestoreFailure | undefined;
  let archiveRows: ArchiveRowCount | undefined;
  const receipt = (): Receipt =>
    buildReceipt(
      { mode: plan.mode, targetRedactedDsn: redactedDsn(plan.target), startedAt, endedAt: deps.now(), phasesMs: clock.durations },
      ctx.facts,
      failure ? { phase: failure.phase, exitCode: failure.exitCode, message: failure.message } : null,
    );
  try {
    ctx.pgEnv = await ctx.scope.pgEnv(plan.target, deps.env);
    const { pre, known, warnings } = await preflightPhase(ctx, source);
    if (dryRun) return { dryRun: true, preflight: pre, check: known };
    // After every service check, and outside every phase: the time a person takes to type is no part of a restore.
    if (names && !plan.confirm) await clock.outside(() => confirmInPlace(plan, names, known?.backup, deps.prompter, deps.signal));
    clock.enter('createRestore');
    const job = await createPhase(ctx, source);
    clock.enter('download');
    const { dir, artifact } = await downloadPhase(ctx, job);
    clock.enter('verify');
    const archive = await verifyPhase(ctx, artifact.path, pre);
    clock.enter('restore');
    // Read alongside pg_restore, from the same verified file (cli-contract 9.11).
    if (scratch?.countArchiveRows)
      archiveRows = countArchiveRows(archive.pgRestore.path, artifact.path, archive.toc, dir, deps.env, deps.scrubber, deps.signal);
    const { pgRestoreExitCode, least, restoreEnv } = await restorePhase(ctx, archive, artifact.path, dir);
    await checkPhases(ctx, archive, restoreEnv);
    const rows = await archiveRows?.counts();
    if (names) {
      clock.enter('swap');
      ctx.facts.inPlace = await swapIn(plan, names, ctx.pgEnv, deps);
      ctx.creation = undefined;
    }
    if (plan.keepArtifact) ctx.scope.keep(dir);
    const durationMs = clock.total();
    const outcome: RestoreOutcome = {
      restoreJob: job.restoreJob,
      artifactBytes: artifact.bytes,
      sha256: artifact.sha256,
      verified: true,
      pgRestoreExitCode,
      durationMs,
      phases: clock.durations,
      receipt: receipt(),
      tableData: hasTableData(archive.toc),
      archiveRows: rows,
      clientEncoding: archive.toc.encoding.client,
      keptArtifactPath: plan.keepArtifact ? artifact.path : undefined,
      notRestored: least?.notRestored ?? [],
      placeholderRoles: least?.placeholderRoles ?? [],
      warnings,
      inPlace: ctx.facts.inPlace,
    };
    return { dryRun: false, receipt: outcome.receipt, outcome };
  } catch (err) {
    clock.total();
    failure = await failed(ctx, err);
    await archiveRows?.stop();
    // A receipt for failures too; not for a dry run, which restores nothing.
    if (dryRun) return { dryRun, receipt: null, failure };
    const written = receipt();
    // A restore that succeeded has its receipt written by the command, after its result is printed
    // (cli-contract 7.15); a failed one here, without hiding the failure behind a file error.
    if (plan.receiptPath) {
      await writeReceipt(plan.receiptPath, written, new UserFiles(deps.scrubber)).catch((e: unknown) =>
        deps.reporter.warn(e instanceof Error ? e.message : String(e)),
      );
    }
    return { dryRun, receipt: written, failure };
  } finally {
    await archiveRows?.stop();
    await ctx.scope.dispose();
    setExitNote(undefined);
  }
}

/** The failure of a run in its current phase: a partial new database settled first, then what that means for the target said. */
async function failed(ctx: RunContext, err: unknown): Promise<RestoreFailure> {
  const { plan, deps, clock } = ctx;
  const { signal, scrubber } = deps;
  const partial = ctx.creation && (await settlePartial(ctx.into, ctx.creation, scrubber));
  const error = explainFailure(err, clock.current, plan, signal.aborted, partial, { names: ctx.names, scratch: ctx.scratch !== undefined });
  const exitCode = signal.aborted ? exitCodeForSignal(signal.reason) : isCliError(error) ? error.exitCode : 1;
  const message = scrubber.scrub(error instanceof Error ? error.message : String(error));
  return { phase: clock.current, exitCode, code: isCliError(error) ? error.details.code : 'unexpected', message, error };
}

/** The CLI's face of a run: a failure is thrown, for the exit code and message it has always had. */
export function restoredOrThrow(result: RestoreResult): Exclude<RestoreResult, { failure: RestoreFailure }> {
  if ('failure' in result) throw result.failure.error;
  return result;
}
