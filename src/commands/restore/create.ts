import { createRestore } from '../../api/operations/restores.js';
import { UsageError } from '../../errors.js';
import { runRestore } from '../../restore/run.js';
import type { Session } from '../../session.js';
import { idempotencyKey, requireId } from '../shared/args.js';
import type { Env } from '../shared/verb.js';
import { engineOptions, guardTarget, restoreDeps, restorePlan, type EngineFlags, type EngineOptions } from './engine-options.js';
import { renderDryRun, renderOutcome } from './outcome.js';
import { checkBackup } from './service-check.js';

export interface CreateFlags extends EngineFlags {
  backup?: string;
  dryRun?: boolean;
  idempotencyKey?: string;
}

export interface CreateOptions extends EngineOptions {
  backupJobId: string;
  dryRun: boolean;
  idempotencyKey: string | undefined;
}

export function options(_args: string[], flags: CreateFlags, env: Env): CreateOptions {
  const backupJobId = requireId(flags.backup, '--backup');
  if (flags.confirm && !flags.inPlace) throw new UsageError('--confirm only applies to --in-place restores.');
  return {
    ...engineOptions(flags, env),
    backupJobId,
    dryRun: flags.dryRun === true,
    idempotencyKey: idempotencyKey(flags.idempotencyKey),
  };
}

/** `svc restore create`: preflight, createRestore, then the local run (cli-contract 7). */
export async function run(opts: CreateOptions, session: Session): Promise<void> {
  guardTarget(opts, session);
  const mode = opts.inPlace ? 'in_place' : 'new_database';
  const plan = restorePlan(opts, mode, session);
  const check = () => checkBackup(session, opts.backupJobId, opts.dryRun);
  const create = async (targetRedactedDsn: string) => {
    const body = { backupJobId: opts.backupJobId, targetRedactedDsn, mode, confirmDestructive: mode === 'in_place' } as const;
    return (await (await session.api()).send(createRestore(body, opts.idempotencyKey))).data;
  };
  const result = await runRestore(plan, { backupJobId: opts.backupJobId, check, ...(opts.dryRun ? {} : { create }) }, restoreDeps(session));
  if (result.dryRun) renderDryRun(session, plan, opts.backupJobId, result.preflight, result.artifactBytes);
  else renderOutcome(session, plan, result.outcome);
}
