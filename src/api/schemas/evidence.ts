import * as z from '../../zod.js';
import { id, nextCursor, nonNegativeInt, responseObject, sha256Hex, timestamp } from './common.js';

export const integrityResults = ['passed', 'failed', 'timed_out'] as const;

export const integrityVerification = responseObject({
  id,
  jobId: id,
  organizationId: id,
  artifactKey: id,
  verifiedAt: timestamp,
  result: z.enum(integrityResults),
  message: z.optional(z.string()),
});

export const evidenceAuditEventSummary = responseObject({ kind: z.string(), at: timestamp });

export const evidenceItem = responseObject({
  backupJobId: id,
  artifactKey: id,
  manifestObjectKey: id,
  sizeBytes: nonNegativeInt,
  checksumSha256: sha256Hex,
  recordedAt: timestamp,
  integrityVerification: z.nullable(integrityVerification),
  auditEvents: z.array(evidenceAuditEventSummary),
});
export type EvidenceItem = z.infer<typeof evidenceItem>;

export const proofSemantics = responseObject({
  completedBackup: z.string(),
  verifiedRestore: z.string(),
  provenRecoverability: z.string(),
});
export type ProofSemantics = z.infer<typeof proofSemantics>;

export const listEvidenceResponse = responseObject({
  evidence: z.array(evidenceItem),
  proofSemantics,
  nextCursor,
});
export const getEvidenceResponse = responseObject({ evidence: evidenceItem, proofSemantics });
