import { freshPlan, inPlaceNames } from '../../restore/in-place/in-place.js';
import { pgRestoreArgs } from '../../restore/load/pg-restore.js';
import type { RestorePlan } from '../../restore/plan.js';
import type { PreflightResult } from '../../restore/target/preflight.js';
import type { ServiceCheck } from '../../restore/run.js';
import { redactedDsn } from '../../restore/target/target.js';

/** The --json document of a dry run: the plan the real run would follow (and what the agent server's plan_restore returns). */
export function dryRunDocument(
  plan: RestorePlan,
  check: ServiceCheck | undefined,
  pre: Pick<PreflightResult, 'pgRestore'> & { createDatabase: boolean | null },
) {
  const backupJobId = check?.selection?.backupJobId ?? null;
  const artifactBytes = check?.artifactBytes;
  const into = plan.mode === 'in_place' ? freshPlan(plan, inPlaceNames(plan.target.database, new Date())) : plan;
  return {
    dryRun: true,
    backupJobId,
    backupSelection: check?.selection ?? null,
    backupStartedAt: check?.selection?.startedAt ?? null,
    backupCompletedAt: check?.selection?.completedAt ?? null,
    artifactBytes: artifactBytes ?? null,
    targetRedactedDsn: redactedDsn(plan.target),
    mode: plan.mode,
    createDatabase: pre.createDatabase,
    // Kept for scripts that read it: no restore is one transaction since in place became a swap (cli-contract 7.17).
    atomic: false,
    jobs: plan.jobs,
    workDir: plan.workDir,
    pgRestore: pre.pgRestore.text,
    // In place, pg_restore restores into the new database beside the target (cli-contract 7.17), named by the run's start time.
    pgRestoreArgs: pgRestoreArgs(into, into.target.database, '<artifact>'),
  };
}
