import type { BackupJobDetail, BackupJobSummary } from '../api/schemas/backups.js';
import type { ProtectedDatabaseSummary } from '../api/schemas/databases.js';
import type { BackupDestinationSummary } from '../api/schemas/destinations.js';
import type { EvidenceItem } from '../api/schemas/evidence.js';
import type { RecoveryWindowDecision } from '../api/schemas/recovery.js';
import type { RestoreExecutionCoordinates, RestoreJob, RestoreMode } from '../api/schemas/restores.js';
import { artifactFor } from './artifact-catalog.js';
import { advanceBackup, type BackupRecord } from './backup-lifecycle.js';
import { BackupStore } from './backup-store.js';
import type { ArtifactFile, RecoveryWindowProof, SandboxData } from './data-model.js';
import { recoveryCandidate, summarizeWindows } from './recovery.js';
import { newRestore, type ArtifactUrlSigner, type CompletedBackup } from './restore-jobs.js';
import { isoSeconds } from './timestamps.js';

/** An item with its place in the keyset order: pages are cut on `seq`, never on offsets. */
export interface Keyed<T> {
  seq: number;
  value: T;
}

interface RestoreRecord {
  organizationId: string;
  job: RestoreJob;
}

/**
 * The sandbox's state: the loaded data set, cloned, plus everything created through the API.
 * Every lookup takes the caller's organization; another organization's resource is simply not found.
 */
export class SandboxWorld {
  readonly #data: SandboxData;
  readonly #now: () => Date;
  readonly #databases: Keyed<ProtectedDatabaseSummary>[];
  readonly #destinations: Keyed<BackupDestinationSummary>[];
  readonly #backups: BackupStore;
  readonly #evidence = new Map<string, EvidenceItem>();
  readonly #restores: RestoreRecord[];
  readonly #windows: RecoveryWindowProof[];
  /** artifactKey -> the archive a presigned URL for it serves. */
  readonly #artifactByKey = new Map<string, ArtifactFile>();

  constructor(data: SandboxData, now: () => Date) {
    this.#data = data;
    this.#now = now;
    const clone = structuredClone(data);
    this.#databases = clone.databases.map((value, seq) => ({ seq, value }));
    this.#destinations = clone.destinations.map((value, seq) => ({ seq, value }));
    this.#backups = new BackupStore(clone.backupJobs.map((job, seq) => ({ seq, job, live: false })));
    for (const item of clone.evidence) this.#evidence.set(item.backupJobId, item);
    this.#restores = clone.restoreJobs.map((job) => ({ organizationId: this.#orgOfDatabase(job.databaseId)!, job }));
    this.#overlayArtifacts(clone.recoveryWindows);
    this.#windows = clone.recoveryWindows;
  }

  /**
   * Every completed backup's artifact is one of the real sandbox archives (artifactFor), so a restore
   * verifies end to end. Its real size and digest replace the fixtures' placeholders wherever the
   * artifact is described.
   */
  #overlayArtifacts(windows: RecoveryWindowProof[]): void {
    for (const { job } of this.#backups.records) {
      if (!job.artifact) continue;
      const { sizeBytes, sha256 } = this.#serve(job, job.artifact.artifactKey);
      job.artifact.sizeBytes = sizeBytes;
      job.artifact.checksumSha256 = sha256;
      const ev = this.#evidence.get(job.id);
      if (ev) {
        ev.sizeBytes = sizeBytes;
        ev.checksumSha256 = sha256;
      }
    }
    for (const w of windows) {
      const base = w.proof.baselineArtifact;
      const artifact = base.backupJobId ? this.#backups.get(base.backupJobId)?.job.artifact : undefined;
      if (artifact && base.checksumSha256) base.checksumSha256 = artifact.checksumSha256;
    }
  }

  /** The archive `job` serves, now reachable under its artifact key. */
  #serve(job: BackupJobDetail, artifactKey: string): ArtifactFile {
    const file = artifactFor(this.#data.artifacts, job);
    this.#artifactByKey.set(artifactKey, file);
    return file;
  }

  /** The file a presigned URL of this artifact key serves; undefined for a key no backup has. */
  artifactPath(artifactKey: string): string | undefined {
    return this.#artifactByKey.get(artifactKey)?.path;
  }

  #orgOfDatabase(databaseId: string): string | undefined {
    return this.#databases.find((d) => d.value.id === databaseId)?.value.organizationId;
  }

  get proofSemantics() {
    return this.#data.proofSemantics;
  }

  get tools() {
    return this.#data.tools;
  }

  databases(org: string): Keyed<ProtectedDatabaseSummary>[] {
    return this.#databases.filter((d) => d.value.organizationId === org);
  }

  database(org: string, id: string): ProtectedDatabaseSummary | undefined {
    return this.databases(org).find((d) => d.value.id === id)?.value;
  }

  destinations(org: string): Keyed<BackupDestinationSummary>[] {
    return this.#destinations.filter((d) => d.value.organizationId === org);
  }

  destination(org: string, id: string): BackupDestinationSummary | undefined {
    return this.destinations(org).find((d) => d.value.id === id)?.value;
  }

  /**
   * Newest first (cli-contract 4, v4), as a high-watermark keyset pages: new jobs take a higher seq,
   * so a walk already under way never sees one appear behind its cursor. Pages with order 'desc'.
   */
  backupsOf(databaseId: string): Keyed<BackupJobSummary>[] {
    return this.#backups
      .ofDatabase(databaseId)
      .slice()
      .reverse()
      .map(({ seq, job }) => ({
        seq,
        value: {
          id: job.id,
          protectedDatabaseId: job.protectedDatabaseId,
          state: job.state,
          trigger: job.trigger,
          attempt: job.attempt,
          enqueuedAt: job.enqueuedAt,
          claimedAt: job.claimedAt ?? null,
        },
      }));
  }

  backup(org: string, id: string): BackupJobDetail | undefined {
    const rec = this.#backups.get(id);
    return rec && rec.job.organizationId === org ? rec.job : undefined;
  }

  /** getBackup: a job started here moves one state forward per poll, then is shown. */
  pollBackup(org: string, id: string): BackupJobDetail | undefined {
    const rec = this.#backups.get(id);
    if (!rec || rec.job.organizationId !== org) return undefined;
    if (rec.live) this.#advance(rec);
    return rec.job;
  }

  #advance(rec: BackupRecord): void {
    const now = isoSeconds(this.#now());
    const evidence = advanceBackup(rec, now, artifactFor(this.#data.artifacts, rec.job));
    if (!evidence) return;
    this.#serve(rec.job, evidence.artifactKey);
    this.#evidence.set(rec.job.id, evidence);
    const db = this.#databases.find((d) => d.value.id === rec.job.protectedDatabaseId)?.value;
    if (db && (!db.lastSuccessfulBackupAt || Date.parse(db.lastSuccessfulBackupAt) < Date.parse(now))) {
      db.lastSuccessfulBackupAt = now;
    }
  }

  /** triggerBackup on a database of the caller's organization (checked by the caller). */
  triggerBackup(db: ProtectedDatabaseSummary): BackupJobDetail {
    const previous = [...this.#backups.ofDatabase(db.id)].reverse().find((b) => b.job.destinationId);
    const destinationId = previous?.job.destinationId ?? this.destinations(db.organizationId).find((d) => d.value.state === 'verified')?.value.id;
    const job: BackupJobDetail = {
      id: this.#backups.nextId(),
      organizationId: db.organizationId,
      protectedDatabaseId: db.id,
      ...(destinationId ? { destinationId } : {}),
      state: 'queued',
      trigger: 'adhoc',
      attempt: 0,
      enqueuedAt: isoSeconds(this.#now()),
    };
    this.#backups.add({ seq: this.#backups.nextSeq, job, live: true, outcome: this.#data.backupOutcomes[db.id] });
    return job;
  }

  /** Newest first, like evidence-list.json; keyed on the backup job's place. */
  evidence(org: string, databaseId?: string): Keyed<EvidenceItem>[] {
    const out: Keyed<EvidenceItem>[] = [];
    for (const rec of this.#backups.records) {
      const item = this.#evidence.get(rec.job.id);
      if (!item || rec.job.organizationId !== org) continue;
      if (databaseId !== undefined && rec.job.protectedDatabaseId !== databaseId) continue;
      out.push({ seq: rec.seq, value: item });
    }
    return out.reverse();
  }

  evidenceItem(org: string, backupJobId: string): EvidenceItem | undefined {
    return this.backup(org, backupJobId) ? this.#evidence.get(backupJobId) : undefined;
  }

  /** createRestore for a completed backup (checked by the caller). */
  createRestore(backup: CompletedBackup, mode: RestoreMode, presign: ArtifactUrlSigner): { restoreJob: RestoreJob; execution: RestoreExecutionCoordinates } {
    const created = newRestore(backup, mode, isoSeconds(this.#now()), presign, artifactFor(this.#data.artifacts, backup));
    this.#restores.push({ organizationId: backup.organizationId, job: created.restoreJob });
    return created;
  }

  restore(org: string, id: string): RestoreJob | undefined {
    return this.#restores.find((r) => r.job.id === id && r.organizationId === org)?.job;
  }

  /** Oldest snapshot first. */
  #windowsOf(databaseId: string): RecoveryWindowDecision[] {
    return this.#windows
      .map((w) => w.window)
      .filter((w) => w.databaseId === databaseId)
      .sort((a, b) => Date.parse(a.snapshotTime) - Date.parse(b.snapshotTime));
  }

  recoverySummary(databaseId: string) {
    return this.#data.recoverySummaries.get(databaseId) ?? summarizeWindows(databaseId, this.#windowsOf(databaseId));
  }

  recoveryCandidate(databaseId: string, incidentTime: string) {
    return recoveryCandidate(databaseId, this.#windowsOf(databaseId), incidentTime);
  }

  recoveryWindow(org: string, windowId: string): RecoveryWindowProof | undefined {
    const w = this.#windows.find((x) => x.window.windowId === windowId);
    return w && this.#orgOfDatabase(w.window.databaseId) === org ? w : undefined;
  }
}
