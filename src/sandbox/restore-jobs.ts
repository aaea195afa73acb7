import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { BackupJobDetail } from '../api/schemas/backups.js';
import type { RestoreExecutionCoordinates, RestoreJob, RestoreMode } from '../api/schemas/restores.js';
import type { ArtifactFile } from './data-model.js';

export interface ArtifactUrlSigner {
  (artifactKey: string): string;
}

export type CompletedBackup = BackupJobDetail & { artifact: NonNullable<BackupJobDetail['artifact']> };

/**
 * A new restore job for a completed backup, and the coordinates the client-local engine executes it with.
 * The job stays `queued`: the API has no operation through which the engine reports progress.
 */
export function newRestore(
  backup: CompletedBackup,
  mode: RestoreMode,
  createdAt: string,
  presign: ArtifactUrlSigner,
  artifactFile: ArtifactFile,
): { restoreJob: RestoreJob; execution: RestoreExecutionCoordinates } {
  const id = randomUUID();
  const { artifact } = backup;
  const restoreJob: RestoreJob = {
    id,
    databaseId: backup.protectedDatabaseId,
    manifestHash: createHash('sha256').update(`${artifact.manifestObjectKey}\n${artifact.checksumSha256}`).digest('hex'),
    mode,
    state: 'queued',
    createdAt,
    finalizedAt: null,
    heartbeatAt: null,
    errorKind: null,
    errorMessage: null,
    proof: { completedBackup: true, verifiedRestore: false, provenRecoverability: false },
  };
  return {
    restoreJob,
    execution: {
      jobId: id,
      lockToken: `lk_${randomBytes(24).toString('hex')}`,
      presignedS3Url: presign(artifact.artifactKey),
      manifestObjectKey: artifact.manifestObjectKey,
      expectedSizeBytes: artifactFile.sizeBytes,
      expectedSha256: artifactFile.sha256,
    },
  };
}
