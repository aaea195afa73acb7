import { freshPlan, inPlaceNames } from '../../restore/in-place/in-place.js';
import { pgRestoreArgs } from '../../restore/load/pg-restore.js';
import type { RestorePlan } from '../../restore/plan.js';
import type { PreflightResult } from '../../restore/target/preflight.js';
import type { ServiceCheck } from '../../restore/run.js';
import { redactedDsn } from '../../restore/target/target.js';
import { id, nonNegativeInt, timestamp } from '../../api/schemas/common.js';
import { restoreModes } from '../../api/schemas/restores.js';
import * as z from '../../zod.js';

/**
 * The --json document of a dry run (cli-contract 7.2), the one schema of it: dryRunDocument() returns
 * it, and the agent server's plan_restore returns it with the commands a person runs (mcp/plan-restore.ts).
 */
export const dryRunDocumentSchema = z.strictObject({
  dryRun: z.literal(true),
  backupJobId: z.nullable(id),
  backupSelection: z.nullable(
    z.strictObject({
      rule: z.enum(['id', 'latest', 'before', 'window']),
      before: z.optional(timestamp),
      windowId: z.optional(id),
      backupJobId: id,
      startedAt: z.nullable(timestamp),
      completedAt: z.nullable(timestamp),
    }),
  ),
  backupStartedAt: z.nullable(timestamp),
  backupCompletedAt: z.nullable(timestamp),
  artifactBytes: z.nullable(nonNegativeInt),
  targetRedactedDsn: z.string(),
  mode: z.enum(restoreModes),
  /** null: plan_restore never connects to the target, so whether the database exists is for the person's --dry-run to say. */
  createDatabase: z.nullable(z.boolean()),
  atomic: z.boolean(),
  jobs: z.int(),
  workDir: z.string(),
  pgRestore: z.string(),
  pgRestoreArgs: z.array(z.string()),
});

export type DryRunDocument = z.infer<typeof dryRunDocumentSchema>;

/** The --json document of a dry run: the plan the real run would follow. */
export function dryRunDocument(
  plan: RestorePlan,
  check: ServiceCheck | undefined,
  pre: Pick<PreflightResult, 'pgRestore'> & { createDatabase: boolean | null },
): DryRunDocument {
  const backupJobId = check?.selection?.backupJobId ?? null;
  const artifactBytes = check?.artifactBytes;
  const into = plan.mode === 'in_place' ? freshPlan(plan, inPlaceNames(plan.target.database, new Date())) : plan;
  return {
    dryRun: true as const,
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
