import { availableParallelism } from 'node:os';
import type { RestoreMode } from '../api/schemas/restores.js';
import type { Target } from './target/target.js';

/** --connections: parallel Range requests for a large artifact (cli-contract 7.4). */
export const DEFAULT_CONNECTIONS = 8;
export const MAX_CONNECTIONS = 16;

/** pg_restore --jobs (and ANALYZE's connections) when not given: the CPUs, at most 4. */
export function defaultJobs(): number {
  return Math.min(availableParallelism(), 4);
}

/** What one restore run is asked to do: built by `restore create` / `restore run` from their options, and by the drill. */
export interface RestorePlan {
  target: Target;
  mode: RestoreMode;
  /** pg_restore --jobs. */
  jobs: number;
  /** Where the artifact is downloaded (a private temp dir is made inside it). */
  workDir: string;
  keepArtifact: boolean;
  /** --confirm was given for an in-place restore. */
  confirm: boolean;
  /** A person is at a terminal: an in-place restore may be confirmed at a prompt. */
  interactive: boolean;
  /** Parallel Range requests for a large artifact (--connections, 1..16). */
  connections: number;
  /** ANALYZE the target after pg_restore (--no-analyze turns it off). */
  analyze: boolean;
  /** --receipt: where the restore receipt is written, for failures too. */
  receiptPath: string | undefined;
  /** --keep-partial: a new database this run created is kept when the restore fails or is interrupted. */
  keepPartial: boolean;
  /** --no-tablespaces: every object into the default tablespace (pg_restore --no-tablespaces); a drill always. */
  noTablespaces?: boolean;
  /** --database-settings: in place, apply the archive's database settings and comment too (a new database always gets them). */
  databaseSettings?: boolean;
  /** in_place: end the target's other sessions at the swap (--terminate-connections), instead of exit 7 naming them. */
  terminateConnections?: boolean;
  /** in_place: drop the replaced database once the swap succeeded (--drop-previous), instead of keeping it. */
  dropPrevious?: boolean;
}

/** The steps of a run, in order; the receipt times each one. */
export const PHASES = ['preflight', 'createRestore', 'download', 'verify', 'restore', 'analyze', 'check', 'swap'] as const;
export type Phase = (typeof PHASES)[number];
