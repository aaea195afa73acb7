import type { BackupJobDetail, BackupJobState } from '../api/schemas/backups.js';
import type { EvidenceItem } from '../api/schemas/evidence.js';
import type { ArtifactFile, BackupOutcome } from './data-model.js';

export interface BackupRecord {
  seq: number;
  job: BackupJobDetail;
  /** Only jobs started in this sandbox advance; the fixture jobs are a snapshot. */
  live: boolean;
  outcome?: BackupOutcome;
}

/** The ad-hoc backup lifecycle: one step per getBackup poll. */
const BACKUP_STEPS: BackupJobState[] = ['queued', 'claimed', 'running', 'finalizing', 'completed'];

/**
 * Moves a job one state forward at `now`, or into its configured failure. A job that completes gets
 * the sandbox artifact; its evidence item is returned for the caller to record.
 */
export function advanceBackup(rec: BackupRecord, now: string, artifact: ArtifactFile): EvidenceItem | undefined {
  const job = rec.job;
  const step = BACKUP_STEPS.indexOf(job.state);
  if (step < 0 || step === BACKUP_STEPS.length - 1) return undefined;
  if (rec.outcome && rec.outcome.failAfter === job.state) {
    job.state = rec.outcome.state;
    job.errorKind = rec.outcome.errorKind;
    job.errorMessage = rec.outcome.errorMessage;
    return undefined;
  }
  job.state = BACKUP_STEPS[step + 1]!;
  if (job.state === 'claimed') job.claimedAt = now;
  if (job.state === 'running') job.startedAt = now;
  if (job.state !== 'completed') return undefined;
  job.completedAt = now;
  const prefix = `${job.organizationId}/${job.protectedDatabaseId}/${job.id}`;
  job.artifact = {
    artifactKey: `${prefix}/dump.pgcustom`,
    manifestObjectKey: `${prefix}/manifest.json`,
    sizeBytes: artifact.sizeBytes,
    checksumSha256: artifact.sha256,
    recordedAt: now,
  };
  return {
    ...job.artifact,
    backupJobId: job.id,
    integrityVerification: null,
    auditEvents: [{ kind: 'backup.completed', at: now }],
  };
}
