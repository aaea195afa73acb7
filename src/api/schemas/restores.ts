import * as z from '../../zod.js';
import { id, nonNegativeInt, requestObject, responseObject, sha256Hex, timestamp } from './common.js';

export const restoreModes = ['new_database', 'in_place'] as const;
export type RestoreMode = (typeof restoreModes)[number];
export const restoreJobStates = [
  'queued',
  'claimed',
  'downloading',
  'verifying',
  'restoring',
  'finalizing',
  'completed',
  'failed_retryable',
  'failed_terminal',
  'cancelled',
  'timed_out',
] as const;
export type RestoreJobState = (typeof restoreJobStates)[number];

export const restoreProof = responseObject({
  completedBackup: z.boolean(),
  verifiedRestore: z.boolean(),
  provenRecoverability: z.boolean(),
});

export const restoreJob = responseObject({
  id,
  databaseId: id,
  manifestHash: z.string(),
  mode: z.enum(restoreModes),
  state: z.enum(restoreJobStates),
  createdAt: timestamp,
  finalizedAt: z.nullable(timestamp),
  heartbeatAt: z.nullable(timestamp),
  errorKind: z.nullable(z.string()),
  errorMessage: z.nullable(z.string()),
  proof: restoreProof,
});
export type RestoreJob = z.infer<typeof restoreJob>;

/** Returned once on creation. lockToken and presignedS3Url are secrets (api-v1.md 2.9). */
export const restoreExecutionCoordinates = responseObject({
  jobId: z.uuid(),
  lockToken: z.string().check(z.minLength(1)),
  presignedS3Url: z.url(),
  manifestObjectKey: id,
  expectedSizeBytes: nonNegativeInt,
  expectedSha256: sha256Hex,
});
export type RestoreExecutionCoordinates = z.infer<typeof restoreExecutionCoordinates>;

export const createRestoreRequest = requestObject({
  backupJobId: id,
  targetRedactedDsn: z.string().check(z.minLength(1)),
  mode: z.enum(restoreModes),
  confirmDestructive: z.boolean(),
});
export type CreateRestoreRequest = z.infer<typeof createRestoreRequest>;

export const createRestoreResponse = responseObject({
  restoreJob,
  execution: restoreExecutionCoordinates,
});
export type CreateRestoreResponse = z.infer<typeof createRestoreResponse>;

export const getRestoreResponse = responseObject({ restoreJob });
