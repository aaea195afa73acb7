import * as z from '../../zod.js';
import { id, nonNegativeInt, responseObject, sha256Hex, timestamp } from './common.js';

export const proofStatuses = ['verified', 'incomplete', 'broken', 'expired'] as const;
export const custodyStatuses = ['complete', 'incomplete'] as const;

export const recoveryWindowDecision = responseObject({
  windowId: id,
  databaseId: id,
  snapshotTime: timestamp,
  validatedThrough: timestamp,
  targetCursor: id,
  gapBeforeIncidentSeconds: z.nullable(nonNegativeInt),
  schemaDigest: z.nullable(sha256Hex),
  segmentCount: nonNegativeInt,
  proofStatus: z.enum(proofStatuses),
  custodyStatus: z.enum(custodyStatuses),
  restoreAvailable: z.boolean(),
  exportAvailable: z.boolean(),
  reason: z.nullable(z.string().check(z.minLength(1))),
  summary: z.string().check(z.minLength(1)),
  recommendedAction: z.string().check(z.minLength(1)),
});
export type RecoveryWindowDecision = z.infer<typeof recoveryWindowDecision>;

export const recoverySummaryResponse = responseObject({
  databaseId: z.string(),
  latest: z.nullable(recoveryWindowDecision),
  reason: z.nullable(z.string()),
  summary: z.string(),
  recommendedAction: z.string(),
});

export const recoveryCandidateResponse = responseObject({
  databaseId: z.string(),
  incidentTime: timestamp,
  recommended: z.nullable(recoveryWindowDecision),
  reason: z.nullable(z.string()),
  summary: z.string(),
  recommendedAction: z.string(),
});

export const recoveryWindowProofResponse = responseObject({
  window: recoveryWindowDecision,
  proof: responseObject({
    baselineArtifact: responseObject({
      backupJobId: z.nullable(z.string()),
      retained: z.boolean(),
      checksumSha256: z.nullable(sha256Hex),
    }),
    cursorChain: responseObject({
      targetCursor: z.string(),
      segmentCount: nonNegativeInt,
      contiguous: z.boolean(),
    }),
    schemaDigest: z.nullable(sha256Hex),
  }),
});
