import type { CreateRestoreResponse, RestoreJob } from '../api/schemas/restores.js';
import type { Prompter } from '../context.js';
import type { SecretScrubber } from '../secrets.js';
import type { Reporter } from '../ui/reporter.js';
import type { ArchiveRowsResult } from './archive/archive-rows.js';
import type { BackupSelection } from './select/backup-selection.js';
import type { InPlaceReport } from './in-place/in-place.js';
import type { Phase } from './plan.js';
import type { PreflightResult } from './target/preflight.js';
import type { Receipt } from './receipt.js';
import type { Restricted } from './load/unprivileged.js';

type Env = Record<string, string | undefined>;

/** Everything a run needs from outside: one object, so tests hand in fakes and a real signal. */
export interface RestoreDeps {
  /** Aborted by SIGINT, SIGTERM or SIGHUP; the reason is the signal's name. */
  signal: AbortSignal;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => Date;
  reporter: Reporter;
  scrubber: SecretScrubber;
  /** The artifact download's retries, timeout and proxy settings. */
  http: { maxRetries: number; timeoutMs: number; env: Env };
  /** The environment child tools (psql, pg_restore) start from. */
  env: Env;
  prompter: Prompter;
  /** Told as each phase starts (a drill's progress lines). */
  onPhase?: (phase: Phase) => void;
  /** Given the receipt, success or failure (a drill keeps it in its report). */
  onReceipt?: (receipt: Receipt) => void;
}

/** What the service said of the backup before anything was created. */
export interface ServiceCheck {
  /** How the backup was chosen (cli-contract 7, step 0), for the receipt and the --json document. */
  selection?: BackupSelection;
  /** The artifact's size, for the disk check before any job exists. */
  artifactBytes?: number;
  /** "bj_0007 of orders-prod (db_orders), completed ... (3d ago), 92.9 KiB": named by the in-place prompt. */
  backup?: string;
}

/**
 * Where the restore job comes from. `restore create` asks the service about the backup (`check`:
 * getBackup, and for a dry run getProfile too) and then calls createRestore (`create`), after
 * preflight, so a refused restore leaves no job behind; `restore run` brings the 202 body it read
 * from stdin (`created`). A dry run passes a check and neither of the others.
 */
export interface RestoreSource {
  /** The first API calls, after the local preflight: choose the backup, say which, and check it. */
  check?: () => Promise<ServiceCheck>;
  create?: (targetRedactedDsn: string) => Promise<CreateRestoreResponse>;
  created?: CreateRestoreResponse;
}

export interface RestoreOutcome {
  restoreJob: RestoreJob;
  artifactBytes: number;
  sha256: string;
  verified: true;
  pgRestoreExitCode: number;
  durationMs: number;
  /** Milliseconds per phase that ran. */
  phases: Partial<Record<Phase, number>>;
  receipt: Receipt;
  /** Whether the archive holds table rows at all (a schema-only dump does not): what a drill's data check needs to know. */
  tableData: boolean;
  /** The archive's rows per table, where the plan asked for them (a drill's rows_match). */
  archiveRows?: ArchiveRowsResult;
  /** The client_encoding that carries the archive's names in the restored database (archive-encoding.ts). */
  clientEncoding: string;
  /** Only with --keep-artifact. */
  keptArtifactPath?: string;
  /** What a least-privilege restore left out, each by name and why (cli-contract 7.14). */
  notRestored: Restricted['notRestored'];
  /** The NOLOGIN roles created for the archive (a drill's, cli-contract 9.9). */
  placeholderRoles: string[];
  /** Said on stderr too: a superuser target (cli-contract 7.14). */
  warnings: string[];
  /** in_place: the swap, the kept database and the commands that drop it or swap it back (cli-contract 7.17). */
  inPlace?: InPlaceReport;
}

export type RestoreResult = { dryRun: true; preflight: PreflightResult; check: ServiceCheck | undefined } | { dryRun: false; outcome: RestoreOutcome };
