import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { backupJobDetail } from '../api/schemas/backups.js';
import { id, nonNegativeInt, sha256Hex } from '../api/schemas/common.js';
import { protectedDatabaseSummary } from '../api/schemas/databases.js';
import { backupDestinationSummary } from '../api/schemas/destinations.js';
import { evidenceItem } from '../api/schemas/evidence.js';
import { publicApiProfile } from '../api/schemas/profile.js';
import { recoveryWindowProofResponse } from '../api/schemas/recovery.js';
import { restoreJob } from '../api/schemas/restores.js';

/**
 * The sandbox's data set. Organization A's world is the unit-test fixtures of fixtures/api (one source of
 * truth); fixtures/sandbox adds only what they lack: a second organization, tokens, settings, behaviours.
 * `--data DIR` points at another directory with the same layout (api/, sandbox/, artifacts/).
 */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** The fixtures/api files the sandbox reads, by role. */
export const API_FILES = {
  profile: 'profile.json',
  databasePages: ['databases-page1.json', 'databases-page2.json'],
  destinations: 'destinations-list.json',
  backupsList: 'backups-list.json',
  backupDetails: ['backup-get-completed.json', 'backup-get-failed.json'],
  evidence: 'evidence-list.json',
  restore: 'restore-get.json',
  recoverySummary: 'recovery-summary.json',
  recoveryCandidate: 'recovery-candidate.json',
  recoveryProof: 'recovery-proof.json',
  tools: 'tools.json',
} as const;

/** The fixtures/sandbox files, which only the sandbox reads. */
export const SANDBOX_FILES = {
  settings: 'sandbox/settings.json',
  world: 'sandbox/world.json',
  tokens: 'sandbox/tokens.json',
} as const;

const rateLimit = z.strictObject({ limit: z.int().min(1), windowSeconds: z.int().min(1).max(3600) });

export const tokenProfile = publicApiProfile.omit({ expiresAt: true });
const inlineProfile = tokenProfile.partial();
const tokenEntry = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9-]*$/),
  token: z.string().regex(/^svc_sandbox_[0-9a-f]{32}$/, 'expected svc_sandbox_ followed by 32 lower-case hex characters'),
  purpose: z.string().min(1),
  /** A fixtures/api file whose `profile` this token answers with; `profile` fields override it. */
  profileFixture: z.string().min(1).optional(),
  profile: inlineProfile.optional(),
  /** Relative to the sandbox start so the demo tokens never expire by the calendar; negative = already expired. */
  expiresInSeconds: z.int().optional(),
  revoked: z.boolean().optional(),
  rateLimit: rateLimit.optional(),
});
export const tokensFile = z.strictObject({ tokens: z.array(tokenEntry).min(1) });

export const artifactName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'expected a lower-case name: a-z, 0-9, ".", "_", "-"');
/** An archive (relative to the data dir) and its metadata file, as test/support/seed.ts buildSeedArtifact writes them. */
const artifactFileEntry = z.strictObject({ file: z.string().min(1), meta: z.string().min(1) });
const urlTtlSeconds = z.int().min(1).max(7 * 24 * 3600);

export const settingsFile = z
  .strictObject({
    pageSize: z.strictObject({
      default: z.int().min(1).max(100),
      max: z.int().min(1).max(1000),
      perList: z.partialRecord(z.enum(['databases', 'destinations', 'backupJobs', 'evidence']), z.int().min(1).max(100)).optional(),
    }),
    rateLimit,
    /** The archives completed backups serve, by name; `default` is served where world.json's artifactFiles names none. */
    artifacts: z
      .strictObject({ default: artifactName, urlTtlSeconds, files: z.record(artifactName, artifactFileEntry) })
      .optional(),
    /** The older form, still read: one archive for every completed backup (its name is `default`). */
    artifact: artifactFileEntry.extend({ urlTtlSeconds }).optional(),
  })
  .refine((s) => (s.artifacts === undefined) !== (s.artifact === undefined), {
    message: 'give "artifacts" (or the older single "artifact"): exactly one of the two',
  });

export const backupOutcome = z.strictObject({
  state: z.enum(['failed_terminal', 'failed_retryable', 'cancelled', 'timed_out']),
  failAfter: z.enum(['queued', 'claimed', 'running', 'finalizing']),
  errorKind: z.string().min(1),
  errorMessage: z.string().min(1),
});

export const worldFile = z.strictObject({
  databases: z.array(protectedDatabaseSummary).default([]),
  destinations: z.array(backupDestinationSummary).default([]),
  backupJobs: z.array(backupJobDetail).default([]),
  evidence: z.array(evidenceItem).default([]),
  restoreJobs: z.array(restoreJob).default([]),
  recoveryWindows: z.array(recoveryWindowProofResponse).default([]),
  /** Databases whose ad-hoc backups fail, and how (so `--wait` failure paths can be shown). */
  backupOutcomes: z.record(id, backupOutcome).default({}),
  /**
   * Which archive of settings.json's artifacts a completed backup serves: by backup job, else by its
   * database (ad-hoc backups completed in the sandbox too), else the default.
   */
  artifactFiles: z
    .strictObject({ databases: z.record(id, artifactName).default({}), backupJobs: z.record(id, artifactName).default({}) })
    .default({ databases: {}, backupJobs: {} }),
});

/** What buildSeedArtifact writes beside an archive; the loader checks every field against the file. */
export const artifactMeta = z.looseObject({
  sizeBytes: nonNegativeInt,
  sha256: sha256Hex,
  pgDumpVersion: z.string().min(1),
  archiveFormatVersion: z.string().regex(/^\d+\.\d+$/),
});
