import type { BackupRecord } from './backup-lifecycle.js';

/** The sandbox's backup jobs, in keyset order, indexed by id and by database; the next seq and job number. */
export class BackupStore {
  readonly records: BackupRecord[];
  /** id -> record: getBackup of an organization of 100,000 jobs must not scan them all. */
  readonly #byId = new Map<string, BackupRecord>();
  /** databaseId -> its records, oldest first (by seq). */
  readonly #byDatabase = new Map<string, BackupRecord[]>();
  #nextNumber: number;

  constructor(records: BackupRecord[]) {
    this.records = records;
    for (const rec of records) this.#index(rec);
    const numbers = records.map((b) => Number(/(\d+)$/.exec(b.job.id)?.[1] ?? 0));
    this.#nextNumber = Math.max(0, ...numbers) + 1;
  }

  get nextSeq(): number {
    return this.records.length;
  }

  /** bj_0010 after bj_0009: the id of the next job started here. */
  nextId(): string {
    return `bj_${String(this.#nextNumber++).padStart(4, '0')}`;
  }

  add(rec: BackupRecord): void {
    this.records.push(rec);
    this.#index(rec);
  }

  get(id: string): BackupRecord | undefined {
    return this.#byId.get(id);
  }

  /** Oldest first. */
  ofDatabase(databaseId: string): readonly BackupRecord[] {
    return this.#byDatabase.get(databaseId) ?? [];
  }

  #index(rec: BackupRecord): void {
    this.#byId.set(rec.job.id, rec);
    const list = this.#byDatabase.get(rec.job.protectedDatabaseId) ?? [];
    list.push(rec);
    this.#byDatabase.set(rec.job.protectedDatabaseId, list);
  }
}
