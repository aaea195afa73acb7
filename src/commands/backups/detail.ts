import type { BackupJobDetail } from '../../api/schemas/backups.js';
import { formatBytes, orDash, timestampWithAge } from '../../output/format.js';
import { fields, type Block, type Field } from '../../output/writer.js';
import { notProofNote } from '../../core/proof.js';

/** The job detail as key/value blocks; `backups get` and `backups trigger --wait` show the same. */
export function backupDetailBlocks(job: BackupJobDetail, now: Date): Block[] {
  const stateStyle = job.state === 'completed' ? 'green' : job.state.startsWith('failed') || job.state === 'timed_out' ? 'red' : undefined;
  const rows: Field[] = [
    ['id', job.id],
    ['database', job.protectedDatabaseId],
    ['destination', job.destinationId],
    ['state', job.state, stateStyle],
    ['trigger', job.trigger],
    ['attempt', String(job.attempt)],
    ['enqueued', timestampWithAge(job.enqueuedAt, now)],
    ['claimed', job.claimedAt && timestampWithAge(job.claimedAt, now)],
    ['started', job.startedAt && timestampWithAge(job.startedAt, now)],
    ['completed', job.completedAt && timestampWithAge(job.completedAt, now)],
    ['error', job.errorKind && `${job.errorKind}: ${orDash(job.errorMessage)}`],
  ];
  const blocks: Block[] = [fields(rows)];
  if (job.artifact) {
    blocks.push(
      fields(
        [
          ['key', job.artifact.artifactKey],
          ['manifest', job.artifact.manifestObjectKey],
          ['size', formatBytes(job.artifact.sizeBytes)],
          ['sha-256', job.artifact.checksumSha256],
          ['recorded', timestampWithAge(job.artifact.recordedAt, now)],
        ],
        'Artifact',
      ),
    );
  }
  if (job.state === 'completed') blocks.push(notProofNote());
  return blocks;
}
