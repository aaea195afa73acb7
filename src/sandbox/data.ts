import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { backupJobDetail, listDatabaseBackupsResponse, type BackupJobDetail } from '../api/schemas/backups.js';
import { id, nonNegativeInt, sha256Hex } from '../api/schemas/common.js';
import { listDatabasesResponse, protectedDatabaseSummary, type ProtectedDatabaseSummary } from '../api/schemas/databases.js';
import { backupDestinationSummary, listDestinationsResponse, type BackupDestinationSummary } from '../api/schemas/destinations.js';
import { evidenceItem, listEvidenceResponse, type EvidenceItem, type ProofSemantics } from '../api/schemas/evidence.js';
import { getProfileResponse, publicApiProfile, type PublicApiProfile } from '../api/schemas/profile.js';
import {
  recoveryCandidateResponse,
  recoverySummaryResponse,
  recoveryWindowProofResponse,
  type RecoveryWindowDecision,
} from '../api/schemas/recovery.js';
import { getRestoreResponse, restoreJob, type RestoreJob } from '../api/schemas/restores.js';
import { toolCatalogResponse, type ToolCatalog } from '../api/schemas/tools.js';

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

const rateLimit = z.strictObject({ limit: z.int().min(1), windowSeconds: z.int().min(1).max(3600) });

const tokenProfile = publicApiProfile.omit({ expiresAt: true });
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
const tokensFile = z.strictObject({ tokens: z.array(tokenEntry).min(1) });

const settingsFile = z.strictObject({
  pageSize: z.strictObject({
    default: z.int().min(1).max(100),
    max: z.int().min(1).max(1000),
    perList: z.partialRecord(z.enum(['databases', 'destinations', 'backupJobs', 'evidence']), z.int().min(1).max(100)).optional(),
  }),
  rateLimit,
  artifact: z.strictObject({
    file: z.string().min(1),
    meta: z.string().min(1),
    urlTtlSeconds: z.int().min(1).max(7 * 24 * 3600),
  }),
});

const backupOutcome = z.strictObject({
  state: z.enum(['failed_terminal', 'failed_retryable', 'cancelled', 'timed_out']),
  failAfter: z.enum(['queued', 'claimed', 'running', 'finalizing']),
  errorKind: z.string().min(1),
  errorMessage: z.string().min(1),
});
export type BackupOutcome = z.infer<typeof backupOutcome>;

const recoveryWindow = recoveryWindowProofResponse;
const worldFile = z.strictObject({
  databases: z.array(protectedDatabaseSummary).default([]),
  destinations: z.array(backupDestinationSummary).default([]),
  backupJobs: z.array(backupJobDetail).default([]),
  evidence: z.array(evidenceItem).default([]),
  restoreJobs: z.array(restoreJob).default([]),
  recoveryWindows: z.array(recoveryWindow).default([]),
  /** Databases whose ad-hoc backups fail, and how (so `--wait` failure paths can be shown). */
  backupOutcomes: z.record(id, backupOutcome).default({}),
});

const artifactMeta = z.looseObject({ sizeBytes: nonNegativeInt, sha256: sha256Hex });

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
  path: string;
  sizeBytes: number;
  sha256: string;
}

export type RecoveryWindowProof = z.infer<typeof recoveryWindowProofResponse>;

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
  recoverySummaries: Map<string, z.infer<typeof recoverySummaryResponse>>;
  recoveryWindows: RecoveryWindowProof[];
  tools: ToolCatalog;
  backupOutcomes: Record<string, BackupOutcome>;
  pageSize: { default: number; max: number; perList: Partial<Record<ListName, number>> };
  rateLimit: { limit: number; windowSeconds: number };
  artifact: ArtifactFile & { urlTtlSeconds: number };
}

export type ListName = 'databases' | 'destinations' | 'backupJobs' | 'evidence';

/** A data set that cannot be served: names the file and the problem. */
export class SandboxDataError extends Error {}

/**
 * The moment the fixtures are written relative to: their "5h ago" is 5 h before this. The unit tests'
 * fake clock stands here too. The sandbox can move every fixture timestamp by (now - epoch), so its
 * data reads as recent whenever it runs.
 */
export const FIXTURE_EPOCH = new Date('2026-11-21T12:00:00Z');

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Moves every timestamp in fixture JSON by `shiftMs`; everything else is left as written. */
function shiftTimestamps(shiftMs: number): ((key: string, value: unknown) => unknown) | undefined {
  if (shiftMs === 0) return undefined;
  return (_key, value) =>
    typeof value === 'string' && ISO_TIMESTAMP.test(value)
      ? new Date(Date.parse(value) + shiftMs).toISOString().replace('.000Z', 'Z')
      : value;
}

let timestampReviver: ((key: string, value: unknown) => unknown) | undefined;

function readJson<S extends z.ZodType>(dir: string, rel: string, schema: S): z.infer<S> {
  const file = path.join(dir, rel);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'), timestampReviver as Parameters<typeof JSON.parse>[1]);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
    throw new SandboxDataError(`${file}: ${reason}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw new SandboxDataError(`${file}: ${issues}`);
  }
  return parsed.data;
}

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

function fail(file: string, message: string): never {
  throw new SandboxDataError(`${file}: ${message}`);
}

function unique<T>(items: T[], key: (t: T) => string, what: string, file: string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    if (map.has(k)) fail(file, `duplicate ${what} id ${k}`);
    map.set(k, item);
  }
  return map;
}

const summaryOf = (d: BackupJobDetail) => ({
  id: d.id,
  protectedDatabaseId: d.protectedDatabaseId,
  state: d.state,
  trigger: d.trigger,
  attempt: d.attempt,
  enqueuedAt: d.enqueuedAt,
  claimedAt: d.claimedAt ?? null,
});

const byTimeThenId = <T extends { id: string }>(time: (t: T) => string) => (a: T, b: T) =>
  Date.parse(time(a)) - Date.parse(time(b)) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Reads and cross-checks a data directory; every id reference must resolve inside one organization. */
export async function loadSandboxData(dirArg: string = DEFAULT_DATA_DIR, opts: { shiftMs?: number } = {}): Promise<SandboxData> {
  timestampReviver = shiftTimestamps(opts.shiftMs ?? 0);
  try {
    return await loadData(dirArg);
  } finally {
    timestampReviver = undefined;
  }
}

async function loadData(dirArg: string): Promise<SandboxData> {
  const dir = path.resolve(dirArg);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new SandboxDataError(`${dir}: not a directory (expected api/, sandbox/ and artifacts/ inside)`);
  }
  const api = (f: string) => `api/${f}`;
  const worldPath = 'sandbox/world.json';
  const tokensPath = 'sandbox/tokens.json';

  const profileFixtures = new Map<string, PublicApiProfile>();
  const loadProfile = (f: string) => {
    if (!profileFixtures.has(f)) profileFixtures.set(f, readJson(dir, api(f), getProfileResponse).profile);
    return profileFixtures.get(f)!;
  };
  loadProfile(API_FILES.profile);

  const settings = readJson(dir, 'sandbox/settings.json', settingsFile);
  const world = readJson(dir, worldPath, worldFile);
  const tokenFile = readJson(dir, tokensPath, tokensFile);

  // Tokens bind organizations: an organization exists in the sandbox when some token belongs to it.
  const organizations = new Map<string, { id: string; slug: string }>();
  const tokens: SandboxTokenDef[] = [];
  unique(tokenFile.tokens, (t) => t.name, 'token name', tokensPath);
  unique(tokenFile.tokens, (t) => t.token, 'token', tokensPath);
  for (const t of tokenFile.tokens) {
    const base = t.profileFixture ? loadProfile(t.profileFixture) : {};
    const { expiresAt: _fromFixture, ...merged } = { ...base, ...t.profile } as PublicApiProfile;
    const profile = tokenProfile.safeParse(merged);
    if (!profile.success) fail(tokensPath, `token ${t.name}: incomplete profile (${profile.error.issues[0]?.path.join('.')})`);
    const org = organizations.get(profile.data.organizationId);
    if (org && org.slug !== profile.data.organizationSlug) {
      fail(tokensPath, `token ${t.name}: organization ${org.id} has two slugs (${org.slug}, ${profile.data.organizationSlug})`);
    }
    organizations.set(profile.data.organizationId, { id: profile.data.organizationId, slug: profile.data.organizationSlug });
    tokens.push({
      name: t.name,
      token: t.token,
      purpose: t.purpose,
      profile: profile.data,
      expiresInSeconds: t.expiresInSeconds,
      revoked: t.revoked === true,
      rateLimit: t.rateLimit ?? settings.rateLimit,
    });
  }

  const databases = [
    ...API_FILES.databasePages.flatMap((f) => readJson(dir, api(f), listDatabasesResponse).databases),
    ...world.databases,
  ].sort(byTimeThenId((d) => d.createdAt));
  const destinations = [...readJson(dir, api(API_FILES.destinations), listDestinationsResponse).destinations, ...world.destinations].sort(
    byTimeThenId((d) => d.createdAt),
  );
  const dbById = unique(databases, (d) => d.id, 'database', 'databases');
  const dstById = unique(destinations, (d) => d.id, 'destination', 'destinations');
  for (const d of [...databases, ...destinations]) {
    if (!organizations.has(d.organizationId)) fail(worldPath, `${d.id} belongs to ${d.organizationId}, which no token in ${tokensPath} is bound to`);
  }

  // Backup jobs: full details where a fixture has them; list items alone are completed into details.
  const details = new Map<string, BackupJobDetail>();
  for (const [file, d] of [
    ...API_FILES.backupDetails.map((f) => [api(f), readJson(dir, api(f), backupJobDetail)] as const),
    ...world.backupJobs.map((d) => [worldPath, d] as const),
  ]) {
    if (details.has(d.id)) fail(file, `duplicate backup job ${d.id}`);
    details.set(d.id, d);
  }
  const listFile = api(API_FILES.backupsList);
  for (const item of readJson(dir, listFile, listDatabaseBackupsResponse).backupJobs) {
    const detail = details.get(item.id);
    if (detail) {
      if (JSON.stringify(summaryOf(detail)) !== JSON.stringify(summaryOf({ ...detail, ...item, claimedAt: item.claimedAt ?? undefined }))) {
        fail(listFile, `${item.id} differs from its detail fixture`);
      }
      continue;
    }
    const db = dbById.get(item.protectedDatabaseId) ?? fail(listFile, `${item.id}: unknown database ${item.protectedDatabaseId}`);
    details.set(item.id, {
      id: item.id,
      organizationId: db.organizationId,
      protectedDatabaseId: item.protectedDatabaseId,
      state: item.state,
      trigger: item.trigger,
      attempt: item.attempt,
      enqueuedAt: item.enqueuedAt,
      ...(item.claimedAt ? { claimedAt: item.claimedAt } : {}),
    });
  }
  const backupJobs = [...details.values()].sort(byTimeThenId((b) => b.enqueuedAt));
  for (const b of backupJobs) {
    const db = dbById.get(b.protectedDatabaseId) ?? fail(worldPath, `backup ${b.id}: unknown database ${b.protectedDatabaseId}`);
    if (db.organizationId !== b.organizationId) fail(worldPath, `backup ${b.id}: organization differs from database ${db.id}'s`);
    if (b.destinationId) {
      const dst = dstById.get(b.destinationId) ?? fail(worldPath, `backup ${b.id}: unknown destination ${b.destinationId}`);
      if (dst.organizationId !== b.organizationId) fail(worldPath, `backup ${b.id}: destination ${dst.id} is another organization's`);
    }
  }

  const evidenceFile = readJson(dir, api(API_FILES.evidence), listEvidenceResponse);
  const evidence = [...evidenceFile.evidence, ...world.evidence];
  unique(evidence, (e) => e.backupJobId, 'evidence', 'evidence');
  for (const e of evidence) {
    const b = details.get(e.backupJobId) ?? fail(worldPath, `evidence ${e.backupJobId}: no such backup job`);
    if (b.artifact && b.artifact.artifactKey !== e.artifactKey) fail(worldPath, `evidence ${e.backupJobId}: artifactKey differs from the backup's`);
    if (e.integrityVerification && e.integrityVerification.organizationId !== b.organizationId) {
      fail(worldPath, `evidence ${e.backupJobId}: integrity verification of another organization`);
    }
  }

  const restoreJobs = [readJson(dir, api(API_FILES.restore), getRestoreResponse).restoreJob, ...world.restoreJobs];
  unique(restoreJobs, (r) => r.id, 'restore job', 'restore jobs');
  for (const r of restoreJobs) if (!dbById.has(r.databaseId)) fail(worldPath, `restore ${r.id}: unknown database ${r.databaseId}`);

  const summary = readJson(dir, api(API_FILES.recoverySummary), recoverySummaryResponse);
  const candidate = readJson(dir, api(API_FILES.recoveryCandidate), recoveryCandidateResponse);
  const recoveryWindows = [readJson(dir, api(API_FILES.recoveryProof), recoveryWindowProofResponse), ...world.recoveryWindows];
  unique(recoveryWindows, (w) => w.window.windowId, 'recovery window', 'recovery windows');
  const windowsCheck = (w: RecoveryWindowDecision, where: string) => {
    if (!dbById.has(w.databaseId)) fail(where, `window ${w.windowId}: unknown database ${w.databaseId}`);
    const known = recoveryWindows.find((x) => x.window.windowId === w.windowId);
    if (!known || known.window.databaseId !== w.databaseId) fail(where, `window ${w.windowId} has no proof fixture for ${w.databaseId}`);
  };
  if (summary.latest) windowsCheck(summary.latest, api(API_FILES.recoverySummary));
  if (candidate.recommended) windowsCheck(candidate.recommended, api(API_FILES.recoveryCandidate));
  for (const w of recoveryWindows) {
    if (!dbById.has(w.window.databaseId)) fail(worldPath, `window ${w.window.windowId}: unknown database ${w.window.databaseId}`);
    const base = w.proof.baselineArtifact.backupJobId;
    if (base !== null && details.get(base)?.protectedDatabaseId !== w.window.databaseId) {
      fail(worldPath, `window ${w.window.windowId}: baseline ${base} is not a backup of ${w.window.databaseId}`);
    }
  }
  if (!dbById.has(summary.databaseId)) fail(api(API_FILES.recoverySummary), `unknown database ${summary.databaseId}`);

  for (const dbId of Object.keys(world.backupOutcomes)) {
    if (!dbById.has(dbId)) fail(worldPath, `backupOutcomes: unknown database ${dbId}`);
  }

  // The artifact is real: its size and digest come from the file and must match its metadata.
  const artifactPath = path.join(dir, settings.artifact.file);
  const metaRel = settings.artifact.meta;
  const meta = readJson(dir, metaRel, artifactMeta);
  if (!existsSync(artifactPath)) fail(artifactPath, 'file not found');
  const sizeBytes = statSync(artifactPath).size;
  const sha256 = await sha256File(artifactPath);
  if (sizeBytes !== meta.sizeBytes || sha256 !== meta.sha256) {
    fail(path.join(dir, metaRel), `sizeBytes/sha256 (${meta.sizeBytes}, ${meta.sha256}) do not match ${settings.artifact.file} (${sizeBytes}, ${sha256})`);
  }

  return {
    dir,
    organizations,
    tokens,
    databases,
    destinations,
    backupJobs,
    evidence,
    proofSemantics: evidenceFile.proofSemantics,
    restoreJobs,
    recoverySummaries: new Map([[summary.databaseId, summary]]),
    recoveryWindows,
    tools: readJson(dir, api(API_FILES.tools), toolCatalogResponse),
    backupOutcomes: world.backupOutcomes,
    pageSize: { default: settings.pageSize.default, max: settings.pageSize.max, perList: settings.pageSize.perList ?? {} },
    rateLimit: settings.rateLimit,
    artifact: { path: artifactPath, sizeBytes, sha256, urlTtlSeconds: settings.artifact.urlTtlSeconds },
  };
}
