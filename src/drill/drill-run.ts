import type { ApiClient } from '../api/client.js';
import type { RestorePlan } from '../restore/plan.js';
import type { RestoreDeps } from '../restore/run.js';
import type { SelectionRule } from '../restore/select/backup-selection.js';
import type { Target } from '../restore/target/target.js';
import type { Baseline } from './baseline.js';
import type { DriftLimits } from './drift.js';
import type { Scratch } from './scratch.js';
import type { SqlCheck } from './sql-checks.js';

/** What every database's drill of one run shares. */
export interface DrillRun {
  api: ApiClient;
  scratch: Scratch;
  /** The restore plan for a scratch target (mode new_database, jobs, connections, work dir ...). */
  plan: (target: Target) => RestorePlan;
  /** The restore engine's dependencies; its own stderr lines are silenced, the drill says one line per phase. */
  deps: Omit<RestoreDeps, 'onPhase'>;
  rule: (databaseId: string) => SelectionRule;
  checks: SqlCheck[];
  maxAgeSeconds: number | undefined;
  /** rows_match runs (--no-rows-check turns it off). */
  rowsCheck: boolean;
  /** --baseline, and no_drift's limits (cli-contract 9.17). */
  baseline?: Baseline;
  drift: DriftLimits;
  keep: boolean;
  /** --strict: what an unprivileged restore cannot create fails restore_clean (cli-contract 7.14). */
  strict: boolean;
  now: () => Date;
  progress: (databaseId: string, text: string) => void;
  command: (databaseId: string, label: string, command: string) => void;
  /** Told when a database is kept (--keep): the cluster is kept only where one is. */
  onKept?: (databaseId: string) => void;
}

/**
 * A run whose scratch server may still be starting: a database's backup is chosen meanwhile (the
 * service's answers and the cluster's start wait for neither), and its drill waits for the server after.
 */
export type StartingRun = Omit<DrillRun, 'scratch'> & { scratch: Promise<Scratch> };
