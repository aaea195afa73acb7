import { dirname } from 'node:path';
import type { Prompter } from '../context.js';
import { InterruptedError, UsageError } from '../errors.js';
import type { SecretScrubber } from '../secrets.js';
import { toolVersion, type PgToolVersion } from './pg-tools.js';
import type { RestorePlan } from './plan.js';
import { redactedDsn, type Target } from './target.js';
import { inspectTarget } from './target-database.js';
import { assertFreeSpace, assertWritableDir } from './workdir.js';

type Env = Record<string, string | undefined>;

export interface PreflightResult {
  pgRestore: PgToolVersion;
  /** new_database only: whether the target database must be created before pg_restore. */
  createDatabase: boolean;
  /** The target server's `server_version`, for the receipt. */
  serverVersion: string;
}

/** Refused before anything runs: an in-place restore nobody can confirm. */
export function assertConfirmable(plan: RestorePlan): void {
  if (plan.mode === 'in_place' && !plan.confirm && !plan.interactive) {
    throw new UsageError(
      `An in-place restore replaces the contents of ${redactedDsn(plan.target)} and needs --confirm in a non-interactive run.`,
      'Add --confirm, or run it in a terminal to type the database name.',
    );
  }
}

/**
 * Everything that can be checked before createRestore (cli-contract 7.2): a refused restore must
 * not leave a restore job behind on the service. `pgEnv` is the children's environment the run made.
 */
export async function preflight(
  plan: RestorePlan,
  env: Env,
  pgEnv: Env,
  deps: { scrubber: SecretScrubber; signal: AbortSignal; prompter: Prompter },
): Promise<PreflightResult> {
  assertConfirmable(plan);
  const pgRestore = await toolVersion('pg_restore', env);
  await toolVersion('psql', env);
  await assertWritableDir(plan.workDir);
  await assertFreeSpace(plan.workDir, 0);
  // The receipt is written at the end, failure or not: find out now if it cannot be.
  if (plan.receiptPath) await assertWritableDir(dirname(plan.receiptPath), '--receipt');
  const { createDatabase, serverVersion } = await inspectTarget(plan.target, plan.mode, pgEnv, deps.scrubber, deps.signal);
  if (plan.mode === 'in_place' && !plan.confirm) await confirmInteractively(plan.target, deps.prompter, deps.signal);
  return { pgRestore, createDatabase, serverVersion };
}

/** Ctrl-C at the prompt is an interrupt (130), and SIGTERM/SIGHUP end it too (cli-contract 7.9). */
async function confirmInteractively(target: Target, prompter: Prompter, signal: AbortSignal): Promise<void> {
  const answer = await prompter.text(
    `In-place restore into ${redactedDsn(target)} replaces its current contents.\nType the database name "${target.database}" to confirm`,
    (value) => (value === target.database ? undefined : `Type exactly: ${target.database}`),
    signal,
  );
  if (answer === undefined) throw new InterruptedError('In-place restore not confirmed; nothing was changed.');
  if (answer !== target.database) throw new UsageError('In-place restore not confirmed; nothing was changed.');
}
