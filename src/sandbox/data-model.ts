import type * as z from '../zod.js';
import type { BackupJobDetail } from '../api/schemas/backups.js';
import type { ProtectedDatabaseSummary } from '../api/schemas/databases.js';
import type { BackupDestinationSummary } from '../api/schemas/destinations.js';
import type { EvidenceItem, ProofSemantics } from '../api/schemas/evidence.js';
import type { recoverySummaryResponse, recoveryWindowProofResponse } from '../api/schemas/recovery.js';
import type { RestoreJob } from '../api/schemas/restores.js';
import type { ToolCatalog } from '../api/schemas/tools.js';
import type { backupOutcome, tokenProfile } from './data-files.js';

/** A loaded, cross-checked data set: what the sandbox serves before anything is created through the API. */
export interface SandboxData {
  dir: string;
  organizations: Map<string, { id: string; slug: string }>;
  tokens: SandboxTokenDef[];
  databases: ProtectedDatabaseSummary[];
  destinations: BackupDestinationSummary[];
  backupJobs: BackupJobDetail[];
  evidence: EvidenceItem[];
  proofSemantics: ProofSemantics;
  restoreJobs: RestoreJob[];
  recoverySummaries: Map<string, RecoverySummary>;
  recoveryWindows: RecoveryWindowProof[];
  tools: ToolCatalog;
  backupOutcomes: Record<string, BackupOutcome>;
  pageSize: { default: number; max: number; perList: Partial<Record<ListName, number>> };
  rateLimit: { limit: number; windowSeconds: number };
  artifacts: ArtifactCatalog;
}

/** The archives completed backups serve, and which backup serves which (artifact-catalog.ts artifactFor). */
export interface ArtifactCatalog {
  files: Map<string, ArtifactFile>;
  defaultName: string;
  byDatabase: Map<string, string>;
  byBackupJob: Map<string, string>;
  urlTtlSeconds: number;
}

export interface SandboxTokenDef {
  name: string;
  token: string;
  purpose: string;
  /** The profile without expiresAt, which is computed from the start time. */
  profile: z.infer<typeof tokenProfile>;
  expiresInSeconds?: number;
  revoked: boolean;
  rateLimit: { limit: number; windowSeconds: number };
}

export interface ArtifactFile {
  /** Its name in settings.json's artifacts. */
  name: string;
  path: string;
  sizeBytes: number;
  sha256: string;
  pgDumpVersion: string;
  archiveFormatVersion: string;
}

export type ListName = 'databases' | 'destinations' | 'backupJobs' | 'evidence';
export type BackupOutcome = z.infer<typeof backupOutcome>;
export type RecoverySummary = z.infer<typeof recoverySummaryResponse>;
export type RecoveryWindowProof = z.infer<typeof recoveryWindowProofResponse>;
