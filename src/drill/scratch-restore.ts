import { createRestore } from '../api/operations/restores.js';
import { isCliError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { RestoreRoles } from '../restore/load/unprivileged.js';
import type { Phase } from '../restore/plan.js';
import type { Receipt } from '../restore/receipt.js';
import { runRestore, type RestoreOutcome, type RestoreResult, type ScratchRestore } from '../restore/run.js';
import type { SelectedBackup } from '../restore/select/backup-selection.js';
import type { Target } from '../restore/target/target.js';
import type { DrillRun } from './drill-run.js';
import { drillMarker } from './marker.js';

/** The checks the restore engine itself answers, in order: a failed one skips those after it. */
export const ENGINE_CHECKS = ['artifact_verified', 'restore_clean', 'objects_present'] as const;
export type EngineCheck = (typeof ENGINE_CHECKS)[number];

/** Where the restore into the scratch database stopped, read from the run's result. */
export interface EngineFailure {
  check: EngineCheck;
  code: string;
  exitCode: number;
  message: string;
}

/** What the restore engine did for one database's drill: its outcome, or the check it failed. */
export interface ScratchRestored {
  receipt: Receipt | null;
  outcome?: RestoreOutcome;
  failure?: EngineFailure;
  /** The owner role it restored as (cli-contract 9.9); undefined where the scratch server's own role restored. */
  roles?: RestoreRoles;
  /** When createRestore was asked: the recovery time runs from here. */
  createdAt?: number;
}

/** Which check a restore that stopped in `phase` failed (cli-contract 9, step 4). */
export function checkFor(phase: Phase, exitCode: number): EngineCheck {
  if (phase === 'check') return 'objects_present';
  if (phase === 'restore' || phase === 'analyze') return 'restore_clean';
  // The archive is fetched and verified up to the check of its header; what does not read or fit the server is the restore's.
  if (phase === 'verify' && exitCode !== ExitCode.integrity) return 'restore_clean';
  return 'artifact_verified';
}

/** What the drill reads from the engine's result: the outcome, or the check its failed phase fails. An interruption is thrown. */
export function scratchRestored(restored: RestoreResult, signal: AbortSignal): Pick<ScratchRestored, 'receipt' | 'outcome' | 'failure'> {
  if ('failure' in restored) {
    if (signal.aborted) throw restored.failure.error;
    const { phase, exitCode, code, message } = restored.failure;
    return { receipt: restored.receipt, failure: { check: checkFor(phase, exitCode), code, exitCode, message } };
  }
  // A drill always creates its restore job: never a dry run here.
  return restored.dryRun ? { receipt: null } : { receipt: restored.receipt, outcome: restored.outcome };
}

/**
 * The restore engine into a new scratch database, as an owner role of its own where the scratch server
 * makes one. A failure is returned with the check it fails; an interruption is thrown.
 */
export async function restoreIntoScratch(run: DrillRun, id: string, selected: SelectedBackup, target: Target): Promise<ScratchRestored> {
  const { backupJobId } = selected.selection;
  let createdAt: number | undefined;
  let roles: RestoreRoles | undefined;
  // The scratch server's superuser only sets up; this database is restored as an owner role of its own (9.9),
  // made while the engine's preflight looks at the server, and known to the engine before createRestore.
  const creating = run.scratch.roles?.();
  creating?.catch(() => {});
  const options: ScratchRestore = { marker: drillMarker(), countArchiveRows: run.rowsCheck };
  try {
    const restored = await runRestore(
      run.plan(target),
      {
        check: async () => {
          const created = await creating;
          roles = created && { ...created, say: (text: string) => run.progress(id, text) };
          if (roles) options.roles = roles;
          return { selection: selected.selection, artifactBytes: selected.backup?.artifact?.sizeBytes };
        },
        create: async (targetRedactedDsn) =>
          (await run.api.send(createRestore({ backupJobId, targetRedactedDsn, mode: 'new_database', confirmDestructive: false }))).data,
      },
      {
        ...run.deps,
        onPhase: (phase) => {
          if (phase === 'createRestore') createdAt = performance.now();
          if (phase !== 'preflight') run.progress(id, phase === 'restore' ? `restore into ${target.database}` : phase);
        },
      },
      options,
    );
    return { ...scratchRestored(restored, run.deps.signal), roles, createdAt };
  } catch (err) {
    if (run.deps.signal.aborted) throw err;
    // The engine could not even start (its failures, an owner role that could not be made included, come back with a receipt).
    const exitCode = isCliError(err) ? err.exitCode : ExitCode.unexpected;
    const message = err instanceof Error ? err.message : String(err);
    return {
      receipt: null,
      failure: { check: 'artifact_verified', code: isCliError(err) ? err.details.code : 'unexpected', exitCode, message },
      roles,
      createdAt,
    };
  }
}
