import * as z from 'zod';
import { id, nonNegativeInt, responseObject, sha256Hex, timestamp } from './common.js';

export const proofStatuses = ['verified', 'incomplete', 'broken', 'expired'] as const;
export const custodyStatuses = ['complete', 'incomplete'] as const;

export const recoveryWindowDecision = responseObject({
  windowId: id,
  databaseId: id,
  snapshotTime: timestamp,
  validatedThrough: timestamp,
  targetCursor: id,
  gapBeforeIncidentSeconds: nonNegativeInt.nullable(),
  schemaDigest: sha256Hex.nullable(),
  segmentCount: nonNegativeInt,
  proofStatus: z.enum(proofStatuses),
  custodyStatus: z.enum(custodyStatuses),
  restoreAvailable: z.boolean(),
  exportAvailable: z.boolean(),
  reason: z.string().min(1).nullable(),
  summary: z.string().min(1),
  recommendedAction: z.string().min(1),
});
export type RecoveryWindowDecision = z.infer<typeof recoveryWindowDecision>;

export const recoverySummaryResponse = responseObject({
  databaseId: z.string(),
  latest: recoveryWindowDecision.nullable(),
  reason: z.string().nullable(),
  summary: z.string(),
  recommendedAction: z.string(),
});

export const recoveryCandidateResponse = responseObject({
  databaseId: z.string(),
  incidentTime: timestamp,
  recommended: recoveryWindowDecision.nullable(),
  reason: z.string().nullable(),
  summary: z.string(),
  recommendedAction: z.string(),
});

export const recoveryWindowProofResponse = responseObject({
  window: recoveryWindowDecision,
  proof: responseObject({
    baselineArtifact: responseObject({
      backupJobId: z.string().nullable(),
      retained: z.boolean(),
      checksumSha256: sha256Hex.nullable(),
    }),
    cursorChain: responseObject({
      targetCursor: z.string(),
      segmentCount: nonNegativeInt,
      contiguous: z.boolean(),
    }),
    schemaDigest: sha256Hex.nullable(),
  }),
});
