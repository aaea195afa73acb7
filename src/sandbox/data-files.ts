import { fileURLToPath } from 'node:url';
import * as z from '../zod.js';
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

const rateLimit = z.strictObject({ limit: z.int().check(z.minimum(1)), windowSeconds: z.int().check(z.minimum(1), z.maximum(3600)) });

export const tokenProfile = z.omit(publicApiProfile, { expiresAt: true });
const inlineProfile = z.partial(tokenProfile);
const tokenEntry = z.strictObject({
  name: z.string().check(z.regex(/^[a-z][a-z0-9-]*$/)),
  token: z.string().check(z.regex(/^svc_sandbox_[0-9a-f]{32}$/, 'expected svc_sandbox_ followed by 32 lower-case hex characters')),
  purpose: z.string().check(z.minLength(1)),
  /** A fixtures/api file whose `profile` this token answers with; `profile` fields override it. */
  profileFixture: z.optional(z.string().check(z.minLength(1))),
  profile: z.optional(inlineProfile),
  /** Relative to the sandbox start so the demo tokens never expire by the calendar; negative = already expired. */
  expiresInSeconds: z.optional(z.int()),
  revoked: z.optional(z.boolean()),
  rateLimit: z.optional(rateLimit),
});
export const tokensFile = z.strictObject({ tokens: z.array(tokenEntry).check(z.minLength(1)) });

export const artifactName = z.string().check(z.regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'expected a lower-case name: a-z, 0-9, ".", "_", "-"'));
/** An archive (relative to the data dir) and its metadata file, as test/support/seed.ts buildSeedArtifact writes them. */
const artifactFileEntry = z.strictObject({ file: z.string().check(z.minLength(1)), meta: z.string().check(z.minLength(1)) });
const urlTtlSeconds = z.int().check(z.minimum(1), z.maximum(7 * 24 * 3600));

export const settingsFile = z
  .strictObject({
    pageSize: z.strictObject({
      default: z.int().check(z.minimum(1), z.maximum(100)),
      max: z.int().check(z.minimum(1), z.maximum(1000)),
      perList: z.optional(z.partialRecord(z.enum(['databases', 'destinations', 'backupJobs', 'evidence']), z.int().check(z.minimum(1), z.maximum(100)))),
    }),
    rateLimit,
    /** The archives completed backups serve, by name; `default` is served where world.json's artifactFiles names none. */
    artifacts: z.optional(z.strictObject({ default: artifactName, urlTtlSeconds, files: z.record(artifactName, artifactFileEntry) })),
    /** The older form, still read: one archive for every completed backup (its name is `default`). */
    artifact: z.optional(z.extend(artifactFileEntry, { urlTtlSeconds })),
  })
  .check(
    z.refine((s) => (s.artifacts === undefined) !== (s.artifact === undefined), {
      message: 'give "artifacts" (or the older single "artifact"): exactly one of the two',
    }),
  );

export const backupOutcome = z.strictObject({
  state: z.enum(['failed_terminal', 'failed_retryable', 'cancelled', 'timed_out']),
  failAfter: z.enum(['queued', 'claimed', 'running', 'finalizing']),
  errorKind: z.string().check(z.minLength(1)),
  errorMessage: z.string().check(z.minLength(1)),
});

export const worldFile = z.strictObject({
  databases: z._default(z.array(protectedDatabaseSummary), []),
  destinations: z._default(z.array(backupDestinationSummary), []),
  backupJobs: z._default(z.array(backupJobDetail), []),
  evidence: z._default(z.array(evidenceItem), []),
  restoreJobs: z._default(z.array(restoreJob), []),
  recoveryWindows: z._default(z.array(recoveryWindowProofResponse), []),
  /** Databases whose ad-hoc backups fail, and how (so `--wait` failure paths can be shown). */
  backupOutcomes: z._default(z.record(id, backupOutcome), {}),
  /**
   * Which archive of settings.json's artifacts a completed backup serves: by backup job, else by its
   * database (ad-hoc backups completed in the sandbox too), else the default.
   */
  artifactFiles: z._default(z.strictObject({ databases: z._default(z.record(id, artifactName), {}), backupJobs: z._default(z.record(id, artifactName), {}) }), {
    databases: {},
    backupJobs: {},
  }),
});

/** What buildSeedArtifact writes beside an archive; the loader checks every field against the file. */
export const artifactMeta = z.looseObject({
  sizeBytes: nonNegativeInt,
  sha256: sha256Hex,
  pgDumpVersion: z.string().check(z.minLength(1)),
  archiveFormatVersion: z.string().check(z.regex(/^\d+\.\d+$/)),
});
