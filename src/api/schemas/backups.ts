import * as z from '../../zod.js';
import { id, nextCursor, nonNegativeInt, requestObject, responseObject, sha256Hex, timestamp } from './common.js';

export const backupJobStates = [
  'queued',
  'claimed',
  'running',
  'finalizing',
  'completed',
  'failed_retryable',
  'failed_terminal',
  'cancelled',
  'timed_out',
] as const;
export type BackupJobState = (typeof backupJobStates)[number];
export const backupJobState = z.enum(backupJobStates);
export const backupTriggers = ['adhoc', 'scheduled'] as const;

export const backupArtifactSummary = responseObject({
  artifactKey: id,
  manifestObjectKey: id,
  sizeBytes: nonNegativeInt,
  checksumSha256: sha256Hex,
  recordedAt: timestamp,
});

export const backupJobSummary = responseObject({
  id,
  protectedDatabaseId: id,
  state: backupJobState,
  trigger: z.enum(backupTriggers),
  attempt: nonNegativeInt,
  enqueuedAt: timestamp,
  claimedAt: z.nullable(timestamp),
});
export type BackupJobSummary = z.infer<typeof backupJobSummary>;

export const listDatabaseBackupsResponse = responseObject({
  backupJobs: z.array(backupJobSummary),
  nextCursor,
});

/** getBackup: the job detail at top level (api-v1.md 2.5). */
export const backupJobDetail = responseObject({
  id,
  organizationId: id,
  protectedDatabaseId: id,
  destinationId: z.optional(id),
  state: backupJobState,
  trigger: z.enum(backupTriggers),
  attempt: nonNegativeInt,
  enqueuedAt: timestamp,
  claimedAt: z.optional(timestamp),
  startedAt: z.optional(timestamp),
  completedAt: z.optional(timestamp),
  errorKind: z.optional(z.string()),
  errorMessage: z.optional(z.string()),
  artifact: z.optional(backupArtifactSummary),
});
export type BackupJobDetail = z.infer<typeof backupJobDetail>;

export const triggerBackupRequest = requestObject({ trigger: z.optional(z.literal('adhoc')) });
export const triggerBackupResponse = responseObject({
  backupJobId: id,
  state: backupJobState,
  enqueuedAt: timestamp,
});
