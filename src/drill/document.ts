import type { Phase } from '../restore/plan.js';
import type { IsolationLevel } from './isolation.js';
import type { NotRestored } from '../restore/load/not-restored.js';
import type { Receipt } from '../restore/receipt.js';
import type { Fingerprint } from './fingerprint.js';

/** The checks of a drill, in the order the contract lists them (cli-contract 9, step 4); SQL checks follow as `check:<name>`. */
export const CHECK_ORDER = [
  'backup_selected',
  'artifact_verified',
  'restore_clean',
  'objects_present',
  'data_present',
  'rows_match',
  'no_drift',
  'max_age',
] as const;
export type BuiltInCheck = (typeof CHECK_ORDER)[number];

export interface DrillCheck {
  name: BuiltInCheck | `check:${string}`;
  status: 'passed' | 'failed' | 'skipped';
  detail?: string;
  durationMs: number;
}

/** Why a database's drill failed (the first failed check), or was not run (`interrupted`, `deadline`). */
export interface DrillFailure {
  check: DrillCheck['name'] | 'interrupted' | 'deadline';
  code: string;
  message: string;
}

/** One database's drill (cli-contract 9, step 6). */
export interface DatabaseDrill {
  databaseId: string;
  name: string | null;
  /** not_run: never started or not finished, by a signal or --deadline (cli-contract 9.18). */
  result: 'passed' | 'failed' | 'planned' | 'not_run';
  /** 0 for a pass; the failure's own exit class otherwise (5 not found, 7 no eligible backup, 10 integrity, 11 local tool, ...). */
  exitCode: number;
  failure?: DrillFailure;
  backupJobId: string | null;
  /** When the backup's dump started: its data is as of then (cli-contract 7.10). */
  backupStartedAt: string | null;
  backupCompletedAt: string | null;
  /** The recovery point this drill proved: now minus the backup's startedAt (its completedAt where it has none). */
  backupAgeSeconds: number | null;
  restoreJobId: string | null;
  /** The recovery time this drill achieved: from createRestore to the last check. */
  recoveryTimeMs: number | null;
  phases: Partial<Record<Phase, number>>;
  checks: DrillCheck[];
  /** The NOLOGIN roles created in the scratch server because the archive names them (cli-contract 9.9). */
  placeholderRoles?: string[];
  /** What the unprivileged restore could not create, by name and why (cli-contract 7.14). */
  notRestored?: NotRestored[];
  receipt: Receipt | null;
  /** What getRecoverySummary says of the database (informational; null where the call is not allowed). */
  service: { proofStatus: string; custodyStatus: string } | null;
  /** What the restored database held: the tables rows_match counted, their sizes, the schema's digest (cli-contract 9.17). */
  fingerprint?: Fingerprint;
  /** --keep: the scratch database was kept; the commands that reach it and stop its server (cli-contract 9.13). */
  kept?: string[];
}

/** A database's result before anything is known of its backup: every field the document requires, empty. */
export function blankDrill(db: { id: string; name: string | null }, result: DatabaseDrill['result'], exitCode = 0): DatabaseDrill {
  return {
    databaseId: db.id,
    name: db.name,
    result,
    exitCode,
    backupJobId: null,
    backupStartedAt: null,
    backupCompletedAt: null,
    backupAgeSeconds: null,
    restoreJobId: null,
    recoveryTimeMs: null,
    phases: {},
    checks: [],
    receipt: null,
    service: null,
  };
}

export interface DrillDocument {
  drill: {
    startedAt: string;
    finishedAt: string;
    /** "2/8", or null without --shard. */
    shard: string | null;
    scratch: 'auto' | 'dsn';
    /** The scratch server's version; null for a dry run. */
    serverVersion: string | null;
    /**
     * How the scratch cluster is kept from svc's processes and files (cli-contract 9.16): another OS
     * user, namespaces of its own, or nothing. null with --scratch <dsn>: the operator's server is
     * not svc's to isolate.
     */
    isolation: IsolationLevel | null;
    databases: DatabaseDrill[];
    passed: number;
    failed: number;
    /** Databases not run (a signal, --deadline); absent where none. */
    notRun?: number;
    /** Only in the document `svc restore drill merge` writes. */
    merge?: MergeNotes;
  };
}

/** What a merge found besides the databases: the shards it read, the ones it lacks, the databases reported twice. */
export interface MergeNotes {
  /** Each shard read, "i/n", in order. */
  shards: string[];
  /** Shards of the split that no report was given for ("3/8"). */
  missingShards: string[];
  /** Report directories given without a drill.json. */
  missingReports: string[];
  /** Database ids that more than one report holds: the one from the report that finished last is kept. */
  duplicates: string[];
  /** From the earliest shard's start to the latest one's end. */
  span: { from: string; to: string } | null;
}
