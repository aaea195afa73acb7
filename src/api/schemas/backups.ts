import * as z from 'zod';
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
  claimedAt: timestamp.nullable(),
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
  destinationId: id.optional(),
  state: backupJobState,
  trigger: z.enum(backupTriggers),
  attempt: nonNegativeInt,
  enqueuedAt: timestamp,
  claimedAt: timestamp.optional(),
  startedAt: timestamp.optional(),
  completedAt: timestamp.optional(),
  errorKind: z.string().optional(),
  errorMessage: z.string().optional(),
  artifact: backupArtifactSummary.optional(),
});
export type BackupJobDetail = z.infer<typeof backupJobDetail>;

export const triggerBackupRequest = requestObject({ trigger: z.literal('adhoc').optional() });
export const triggerBackupResponse = responseObject({
  backupJobId: id,
  state: backupJobState,
  enqueuedAt: timestamp,
});
