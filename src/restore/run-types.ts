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
import type { RestoreRoles, Restricted } from './load/unprivileged.js';

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
}

/**
 * What a drill asks of a run beside its plan (cli-contract 9). Given, the target is a scratch one: its
 * database must not exist before the run, and a server older than the archive's source fails the
 * restore instead of drawing a warning.
 */
export interface ScratchRestore {
  /** The drill's owner marker (drill/marker.ts), made the comment of the database the run creates, so a later drill can reap it (9.12). */
  marker: string;
  /** Count the archive's rows per table while pg_restore runs (rows_match, 9.11). */
  countArchiveRows: boolean;
  /**
   * Least privilege (9.9): the target's role only sets up, and the restore runs as the owner role the
   * drill created. Absent: the restore runs as the target's role.
   */
  roles?: RestoreRoles;
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

/** Why a run failed: the receipt's failure, and the error the CLI exits with. */
export interface RestoreFailure {
  /** The phase the run was in. */
  phase: Phase;
  exitCode: number;
  /** The error's code (ERROR_CODES), `unexpected` for an error svc did not expect. */
  code: string;
  /** Scrubbed of secrets, as the receipt has it. */
  message: string;
  /** The failure with what it means for the target added (failure.ts). */
  error: unknown;
}

/**
 * A run's result: a dry run's checks, a restore's outcome, or the phase it failed in, each with its
 * receipt (none for a dry run, which restores nothing). A run returns its failure: only a bug throws.
 */
export type RestoreResult =
  | { dryRun: true; preflight: PreflightResult; check: ServiceCheck | undefined }
  | { dryRun: false; receipt: Receipt; outcome: RestoreOutcome }
  | { dryRun: boolean; receipt: Receipt | null; failure: RestoreFailure };
