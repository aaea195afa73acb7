import type { InPlaceNames } from './in-place/in-place.js';
import type { Creation } from './load/partial-database.js';
import type { PhaseClock } from './phase-clock.js';
import type { RestorePlan } from './plan.js';
import type { ReceiptFacts } from './receipt.js';
import type { RestoreDeps, ScratchRestore } from './run-types.js';
import type { RunScope } from './scope.js';

type Env = Record<string, string | undefined>;

/** What every phase of one run shares: handed from phase to phase by the orchestrator (run.ts). */
export interface RunContext {
  plan: RestorePlan;
  /** Where the backup goes: the plan's target, or in place the new database beside it (cli-contract 7.17). */
  into: RestorePlan;
  names: InPlaceNames | undefined;
  /** A drill's options beside the plan. */
  scratch: ScratchRestore | undefined;
  deps: RestoreDeps;
  /** The run's temp dirs and PGPASSFILE, disposed in its finally. */
  scope: RunScope;
  clock: PhaseClock;
  /** What the receipt says, filled in as the phases learn it. */
  facts: ReceiptFacts;
  /** The children's environment for the target's own role. */
  pgEnv: Env;
  /** The new database this run creates, while a failure would leave it partial: settled (dropped or kept) on failure. */
  creation: Creation | undefined;
}
