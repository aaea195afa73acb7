import type { UserFiles } from '../output/user-file.js';
import { VERSION } from '../version.js';
import type { BackupSelection } from './select/backup-selection.js';
import type { DatabaseOptions } from './archive/database-options.js';
import type { DatabaseSettingsReport } from './archive/database-settings.js';
import type { InPlaceReport } from './in-place/in-place.js';
import type { Inventory, ObjectKind } from './load/inventory.js';
import type { NotRestored } from './load/not-restored.js';
import type { Phase } from './plan.js';

/**
 * The restore receipt (cli-contract 7.8): what a restore drill keeps as evidence. It holds no secret:
 * no lock token, no URL, no password; the target only as targetRedactedDsn; messages scrubbed.
 */
export interface Receipt {
  svcVersion: string;
  nodeVersion: string;
  pgRestoreVersion: string | null;
  targetServerVersion: string | null;
  restoreJobId: string | null;
  backupJobId: string | null;
  /** How the backup was chosen (cli-contract 7, step 0); null for `restore run`, which is handed a job. */
  backupSelection: BackupSelection | null;
  /** When the backup's dump started (its data is as of then, cli-contract 7.10) and completed; null where unknown. */
  backupStartedAt: string | null;
  backupCompletedAt: string | null;
  mode: 'new_database' | 'in_place';
  targetRedactedDsn: string;
  artifact: {
    bytes: number | null;
    expectedSha256: string | null;
    computedSha256: string | null;
    verified: boolean;
  };
  connections: number | null;
  /** Milliseconds of each phase that ran. */
  phasesMs: Partial<Record<Phase, number>>;
  /** Restored objects by kind (tables, views, materialized views, sequences, indexes), after the check. */
  objects: Record<ObjectKind, number> | null;
  /** pg_class.reltuples of each table after ANALYZE; null where never analysed (--no-analyze). */
  tableRowEstimates: Record<string, number | null> | null;
  /** A drill's rows_match (cli-contract 9.11): totals and each table whose counts differ; null where the check did not run. */
  rowsMatch: RowsMatchReceipt | null;
  /** The encoding and locale the new database was created with, as the archive records them (cli-contract 7.11); null in place. */
  databaseOptions: DatabaseOptions | null;
  /** The archive's database settings and comment: what was applied, what was not and why; null where none were applied (in place without --database-settings). */
  databaseSettings: DatabaseSettingsReport | null;
  /** The tablespaces the archive names, and whether --no-tablespaces put everything in the default one. */
  tablespaces: { named: string[]; ignored: boolean } | null;
  /** What a least-privilege restore (a drill's) left out, each by name and why (cli-contract 7.14). */
  notRestored: NotRestored[];
  /** The NOLOGIN placeholder roles created for the archive (cli-contract 9.9). */
  placeholderRoles: string[];
  /** in_place, once swapped: the name the replaced database is kept under, what was carried over, the commands that drop it or swap it back (cli-contract 7.17). */
  inPlace?: InPlaceReport;
  startedAt: string;
  endedAt: string;
  outcome: 'restored' | 'failed';
  /** For a failed restore: where it stopped, its exit code and message. */
  failure: { phase: Phase; exitCode: number; message: string } | null;
}

export interface RowsMatchReceipt {
  /** Tables compared: every COPY block's table of the archive. */
  tables: number;
  archiveRows: number;
  restoredRows: number;
  /** Each table whose restored count differs ("schema.table"); restored is null for a table not found. */
  mismatches: Array<{ table: string; archive: number; restored: number | null }>;
  /** Extension configuration tables among them, which may hold the extension's own rows too (restored >= archive). */
  extensionTables: number;
  /** TABLE DATA entries without a COPY block (a dump made with --inserts): not counted. */
  uncounted: number;
}

/** What a run learns as it goes; the receipt is made from it at the end, whatever the end. */
export interface ReceiptFacts {
  pgRestoreVersion?: string;
  targetServerVersion?: string;
  restoreJobId?: string;
  backupJobId?: string;
  selection?: BackupSelection;
  expectedBytes?: number;
  expectedSha256?: string;
  bytes?: number;
  computedSha256?: string;
  connections?: number;
  inventory?: Inventory;
  databaseOptions?: DatabaseOptions;
  databaseSettings?: DatabaseSettingsReport;
  tablespaces?: { named: string[]; ignored: boolean };
  notRestored?: NotRestored[];
  placeholderRoles?: string[];
  inPlace?: InPlaceReport;
}

export function buildReceipt(
  base: { mode: Receipt['mode']; targetRedactedDsn: string; startedAt: Date; endedAt: Date; phasesMs: Receipt['phasesMs'] },
  facts: ReceiptFacts,
  failure: Receipt['failure'],
): Receipt {
  return {
    svcVersion: VERSION,
    nodeVersion: process.versions.node,
    pgRestoreVersion: facts.pgRestoreVersion ?? null,
    targetServerVersion: facts.targetServerVersion ?? null,
    restoreJobId: facts.restoreJobId ?? null,
    backupJobId: facts.backupJobId ?? null,
    backupSelection: facts.selection ?? null,
    backupStartedAt: facts.selection?.startedAt ?? null,
    backupCompletedAt: facts.selection?.completedAt ?? null,
    mode: base.mode,
    targetRedactedDsn: base.targetRedactedDsn,
    artifact: {
      bytes: facts.bytes ?? facts.expectedBytes ?? null,
      expectedSha256: facts.expectedSha256 ?? null,
      computedSha256: facts.computedSha256 ?? null,
      verified: facts.computedSha256 !== undefined && facts.computedSha256 === facts.expectedSha256,
    },
    connections: facts.connections ?? null,
    phasesMs: base.phasesMs,
    objects: facts.inventory?.counts ?? null,
    tableRowEstimates: facts.inventory?.rowEstimates ?? null,
    rowsMatch: null,
    databaseOptions: facts.databaseOptions ?? null,
    databaseSettings: facts.databaseSettings ?? null,
    tablespaces: facts.tablespaces ?? null,
    notRestored: facts.notRestored ?? [],
    placeholderRoles: facts.placeholderRoles ?? [],
    ...(facts.inPlace ? { inPlace: facts.inPlace } : {}),
    startedAt: base.startedAt.toISOString(),
    endedAt: base.endedAt.toISOString(),
    outcome: failure ? 'failed' : 'restored',
    failure,
  };
}

/** --receipt FILE, through the user-file writer (cli-contract 7.15): scrubbed, whole, 0644, never through a link. */
export async function writeReceipt(path: string, receipt: Receipt, files: UserFiles): Promise<void> {
  await files.json(path, receipt);
}
