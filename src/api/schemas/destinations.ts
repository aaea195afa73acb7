import * as z from '../../zod.js';
import { id, nextCursor, responseObject, retentionDays, timestamp } from './common.js';

export const destinationKinds = ['aws_s3', 'minio', 'gcs_s3_compat', 'wasabi', 'backblaze_b2'] as const;
export const destinationStates = ['unverified', 'verifying', 'verified', 'failed', 'suspended'] as const;

/** Never contains credential material (api-v1.md 2.2). */
export const backupDestinationSummary = responseObject({
  id,
  organizationId: id,
  kind: z.enum(destinationKinds),
  region: z.string().check(z.minLength(1)),
  retentionFloorDays: retentionDays,
  state: z.enum(destinationStates),
  lastVerifiedAt: z.optional(timestamp),
  createdAt: timestamp,
  bucketArn: z.optional(z.string()),
  bucketName: z.optional(z.string()),
});
export type BackupDestinationSummary = z.infer<typeof backupDestinationSummary>;

export const listDestinationsResponse = responseObject({
  destinations: z.array(backupDestinationSummary),
  nextCursor,
});
export const getDestinationResponse = responseObject({ destination: backupDestinationSummary });
