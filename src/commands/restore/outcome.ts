import { formatBytes } from '../../output/format.js';
import { fields, text } from '../../output/writer.js';
import { pgRestoreArgs } from '../../restore/pg-restore.js';
import type { RestorePlan } from '../../restore/plan.js';
import type { PreflightResult } from '../../restore/preflight.js';
import type { RestoreOutcome } from '../../restore/run.js';
import { redactedDsn } from '../../restore/target.js';
import type { Session } from '../../session.js';
import { restoreJobBlocks } from './job-view.js';

/** The end of a restore: the --json document of cli-contract 4, or the summary for a person. */
export function renderOutcome(session: Session, plan: RestorePlan, outcome: RestoreOutcome): void {
  const { artifactBytes, sha256, verified, pgRestoreExitCode, durationMs } = outcome;
  session.out.render({ restoreJob: outcome.restoreJob, execution: { artifactBytes, sha256, verified, pgRestoreExitCode, durationMs } }, [
    text(
      `Restored backup into ${redactedDsn(plan.target)} (${plan.mode === 'in_place' ? 'in place' : 'new database'}) in ${(durationMs / 1000).toFixed(1)}s.`,
      'green',
    ),
    fields([
      ['artifact', `${formatBytes(artifactBytes)}, verified`],
      ['sha-256', sha256],
      ['pg_restore exit code', String(pgRestoreExitCode)],
      ['kept artifact', outcome.keptArtifactPath],
    ]),
    ...restoreJobBlocks(outcome.restoreJob, session.now()),
    text('The service is not told the local result (API v1 has no operation for it): its restore job and proof flags above are its own view.', 'dim'),
  ]);
}

/** What a dry run found: the plan the real run would follow. Nothing was created, downloaded or restored. */
export function renderDryRun(session: Session, plan: RestorePlan, backupJobId: string, pre: PreflightResult): void {
  const doc = {
    dryRun: true,
    backupJobId,
    targetRedactedDsn: redactedDsn(plan.target),
    mode: plan.mode,
    createDatabase: pre.createDatabase,
    atomic: plan.atomic,
    jobs: plan.jobs,
    workDir: plan.workDir,
    pgRestore: pre.pgRestore.text,
    pgRestoreArgs: pgRestoreArgs(plan, plan.target.database, '<artifact>'),
  };
  session.out.render(doc, [
    text('Dry run: preflight passed; nothing was created, downloaded or restored.', 'green'),
    fields([
      ['backup job', backupJobId],
      ['target', doc.targetRedactedDsn],
      ['mode', plan.mode === 'in_place' ? `in_place (${plan.atomic ? 'single transaction' : `--jobs ${plan.jobs}, not atomic`})` : 'new_database'],
      ['create database', pre.createDatabase ? 'yes (TEMPLATE template0)' : 'no (exists and is empty)'],
      ['work dir', plan.workDir],
      ['pg_restore', doc.pgRestore],
      ['pg_restore args', doc.pgRestoreArgs.join(' ')],
    ]),
  ]);
}
