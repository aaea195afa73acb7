import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { backupJobDetail, listDatabaseBackupsResponse, type BackupJobDetail } from '../api/schemas/backups.js';
import { listDatabasesResponse } from '../api/schemas/databases.js';
import { listDestinationsResponse } from '../api/schemas/destinations.js';
import { listEvidenceResponse } from '../api/schemas/evidence.js';
import { getProfileResponse, type PublicApiProfile } from '../api/schemas/profile.js';
import { recoveryCandidateResponse, recoverySummaryResponse, recoveryWindowProofResponse, type RecoveryWindowDecision } from '../api/schemas/recovery.js';
import { getRestoreResponse } from '../api/schemas/restores.js';
import { toolCatalogResponse } from '../api/schemas/tools.js';
import { loadArtifactCatalog } from './artifact-catalog.js';
import { checkBackupTimes } from './backup-times.js';
import { API_FILES, DEFAULT_DATA_DIR, SANDBOX_FILES, settingsFile, tokensFile, worldFile } from './data-files.js';
import type { SandboxData } from './data-model.js';
import { fail, jsonReader, SandboxDataError, unique } from './data-reader.js';
import { bindTokens } from './data-tokens.js';
import { shiftTimestamps } from './timestamps.js';

const summaryOf = (d: BackupJobDetail) => ({
  id: d.id,
  protectedDatabaseId: d.protectedDatabaseId,
  state: d.state,
  trigger: d.trigger,
  attempt: d.attempt,
  enqueuedAt: d.enqueuedAt,
  claimedAt: d.claimedAt ?? null,
});

const byTimeThenId =
  <T extends { id: string }>(time: (t: T) => string) =>
  (a: T, b: T) =>
    Date.parse(time(a)) - Date.parse(time(b)) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Reads and cross-checks a data directory; every id reference must resolve inside one organization. */
export async function loadSandboxData(dirArg: string = DEFAULT_DATA_DIR, opts: { shiftMs?: number } = {}): Promise<SandboxData> {
  const dir = path.resolve(dirArg);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new SandboxDataError(`${dir}: not a directory (expected api/, sandbox/ and artifacts/ inside)`);
  }
  const readJson = jsonReader(dir, shiftTimestamps(opts.shiftMs ?? 0));
  const api = (f: string) => `api/${f}`;
  const worldPath = SANDBOX_FILES.world;

  const profileFixtures = new Map<string, PublicApiProfile>();
  const loadProfile = (f: string) => {
    if (!profileFixtures.has(f)) profileFixtures.set(f, readJson(api(f), getProfileResponse).profile);
    return profileFixtures.get(f)!;
  };
  loadProfile(API_FILES.profile);

  const settings = readJson(SANDBOX_FILES.settings, settingsFile);
  const world = readJson(worldPath, worldFile);
  const { organizations, tokens } = bindTokens(readJson(SANDBOX_FILES.tokens, tokensFile), settings, loadProfile);

  const databases = [...API_FILES.databasePages.flatMap((f) => readJson(api(f), listDatabasesResponse).databases), ...world.databases].sort(
    byTimeThenId((d) => d.createdAt),
  );
  const destinations = [...readJson(api(API_FILES.destinations), listDestinationsResponse).destinations, ...world.destinations].sort(
    byTimeThenId((d) => d.createdAt),
  );
  const dbById = unique(databases, (d) => d.id, 'database', 'databases');
  const dstById = unique(destinations, (d) => d.id, 'destination', 'destinations');
  for (const d of [...databases, ...destinations]) {
    if (!organizations.has(d.organizationId)) {
      fail(worldPath, `${d.id} belongs to ${d.organizationId}, which no token in ${SANDBOX_FILES.tokens} is bound to`);
    }
  }

  // Backup jobs: full details where a fixture has them; list items alone are completed into details.
  const details = new Map<string, BackupJobDetail>();
  const sourceOf = new Map<string, string>();
  for (const [file, d] of [
    ...API_FILES.backupDetails.map((f) => [api(f), readJson(api(f), backupJobDetail)] as const),
    ...world.backupJobs.map((d) => [worldPath, d] as const),
  ]) {
    if (details.has(d.id)) fail(file, `duplicate backup job ${d.id}`);
    details.set(d.id, d);
    sourceOf.set(d.id, file);
  }
  const listFile = api(API_FILES.backupsList);
  for (const item of readJson(listFile, listDatabaseBackupsResponse).backupJobs) {
    const detail = details.get(item.id);
    if (detail) {
      if (JSON.stringify(summaryOf(detail)) !== JSON.stringify(summaryOf({ ...detail, ...item, claimedAt: item.claimedAt ?? undefined }))) {
        fail(listFile, `${item.id} differs from its detail fixture`);
      }
      continue;
    }
    const db = dbById.get(item.protectedDatabaseId) ?? fail(listFile, `${item.id}: unknown database ${item.protectedDatabaseId}`);
    sourceOf.set(item.id, listFile);
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
  checkBackupTimes(backupJobs, (id) => sourceOf.get(id)!);

  const evidenceFile = readJson(api(API_FILES.evidence), listEvidenceResponse);
  const evidence = [...evidenceFile.evidence, ...world.evidence];
  unique(evidence, (e) => e.backupJobId, 'evidence', 'evidence');
  for (const e of evidence) {
    const b = details.get(e.backupJobId) ?? fail(worldPath, `evidence ${e.backupJobId}: no such backup job`);
    if (b.artifact && b.artifact.artifactKey !== e.artifactKey) fail(worldPath, `evidence ${e.backupJobId}: artifactKey differs from the backup's`);
    if (e.integrityVerification && e.integrityVerification.organizationId !== b.organizationId) {
      fail(worldPath, `evidence ${e.backupJobId}: integrity verification of another organization`);
    }
  }

  const restoreJobs = [readJson(api(API_FILES.restore), getRestoreResponse).restoreJob, ...world.restoreJobs];
  unique(restoreJobs, (r) => r.id, 'restore job', 'restore jobs');
  for (const r of restoreJobs) if (!dbById.has(r.databaseId)) fail(worldPath, `restore ${r.id}: unknown database ${r.databaseId}`);

  const summary = readJson(api(API_FILES.recoverySummary), recoverySummaryResponse);
  const candidate = readJson(api(API_FILES.recoveryCandidate), recoveryCandidateResponse);
  const recoveryWindows = [readJson(api(API_FILES.recoveryProof), recoveryWindowProofResponse), ...world.recoveryWindows];
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
    const { backupJobId: base, retained } = w.proof.baselineArtifact;
    if (base !== null && details.get(base)?.protectedDatabaseId !== w.window.databaseId) {
      fail(worldPath, `window ${w.window.windowId}: baseline ${base} is not a backup of ${w.window.databaseId}`);
    }
    // `svc restore create --window` restores a retained baseline: it must be a completed backup with an artifact.
    if (base !== null && retained && !details.get(base)?.artifact) {
      fail(worldPath, `window ${w.window.windowId}: baseline ${base} is retained but has no artifact`);
    }
  }
  if (!dbById.has(summary.databaseId)) fail(api(API_FILES.recoverySummary), `unknown database ${summary.databaseId}`);

  for (const dbId of Object.keys(world.backupOutcomes)) {
    if (!dbById.has(dbId)) fail(worldPath, `backupOutcomes: unknown database ${dbId}`);
  }

  const artifacts = await loadArtifactCatalog(dir, settings, world, readJson, {
    hasDatabase: (id) => dbById.has(id),
    hasArtifact: (id) => (details.has(id) ? details.get(id)!.artifact !== undefined : undefined),
  });

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
    tools: readJson(api(API_FILES.tools), toolCatalogResponse),
    backupOutcomes: world.backupOutcomes,
    pageSize: { default: settings.pageSize.default, max: settings.pageSize.max, perList: settings.pageSize.perList ?? {} },
    rateLimit: settings.rateLimit,
    artifacts,
  };
}
