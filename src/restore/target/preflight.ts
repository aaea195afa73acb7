import { dirname } from 'node:path';
import { refuseLinks } from '../../output/user-file.js';
import type { SecretScrubber } from '../../secrets.js';
import type { Reporter } from '../../ui/reporter.js';
import { assertConfirmable } from './confirm.js';
import { assertCanSwap } from '../in-place/in-place.js';
import { findClientTools, type PgRestoreBinary } from './pg-restore-choice.js';
import type { RestorePlan } from '../plan.js';
import { inspectTarget, type TargetFacts } from './target-database.js';
import { assertFreeSpace, assertWritableDir } from '../download/workdir.js';

type Env = Record<string, string | undefined>;

export interface PreflightResult extends TargetFacts {
  /** The pg_restore found first; the one that restores may be a newer one that reads the archive. */
  pgRestore: PgRestoreBinary;
}

/**
 * Everything that can be checked before createRestore (cli-contract 7.2): a refused restore must
 * not leave a restore job behind on the service. `pgEnv` is the children's environment the run made;
 * `scratch`: a drill's target, whose database must not exist yet.
 */
export async function preflight(
  plan: RestorePlan,
  env: Env,
  pgEnv: Env,
  deps: { scrubber: SecretScrubber; signal: AbortSignal; reporter: Reporter },
  scratch = false,
): Promise<PreflightResult> {
  assertConfirmable(plan);
  const pgRestore = await findClientTools(env);
  await assertWritableDir(plan.workDir);
  await assertFreeSpace(plan.workDir, 0);
  // The receipt is written at the end, failure or not: find out now if it cannot be.
  if (plan.receiptPath) {
    await assertWritableDir(dirname(plan.receiptPath), '--receipt');
    await refuseLinks([plan.receiptPath]);
  }
  const facts = await inspectTarget(plan.target, plan.mode, pgEnv, deps.scrubber, deps.signal, scratch);
  // Before any API call: a role that cannot swap, or clients that would block the swap, are found before the download.
  if (plan.mode === 'in_place') await assertCanSwap(plan, pgEnv, { ...deps, info: (m) => deps.reporter.info(m) });
  return { pgRestore, ...facts };
}
