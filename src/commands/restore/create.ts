import { createRestore } from '../../api/operations/restores.js';
import { UsageError } from '../../errors.js';
import { restoredOrThrow, runRestore } from '../../restore/run.js';
import type { Session } from '../../session.js';
import { idempotencyKey } from '../../core/args.js';
import type { Env } from '../shared/verb.js';
import { selectionRule, type SelectionFlags, type SelectionOptions } from '../../core/restore/selection-options.js';
import { engineOptions, guardTarget, restoreDeps, restorePlan, type EngineFlags, type EngineOptions } from '../../core/restore/engine-options.js';
import { renderDryRun, renderOutcome } from './outcome.js';
import { serviceCheck } from '../../core/restore/service-check.js';

export interface CreateFlags extends EngineFlags, SelectionFlags {
  dryRun?: boolean;
  idempotencyKey?: string;
}

export interface CreateOptions extends EngineOptions, SelectionOptions {
  dryRun: boolean;
  idempotencyKey: string | undefined;
}

export function options(_args: string[], flags: CreateFlags, env: Env): CreateOptions {
  const { rule } = selectionRule(flags);
  for (const [given, flag] of [
    [flags.confirm, '--confirm'],
    [flags.terminateConnections, '--terminate-connections'],
    [flags.dropPrevious, '--drop-previous'],
  ] as const) {
    if (given && !flags.inPlace) throw new UsageError(`${flag} only applies to --in-place restores.`);
  }
  return {
    ...engineOptions(flags, env),
    rule,
    dryRun: flags.dryRun === true,
    idempotencyKey: idempotencyKey(flags.idempotencyKey),
  };
}

/** `svc restore create`: the backup chosen, preflight, createRestore, then the local run (cli-contract 7). */
export async function run(opts: CreateOptions, session: Session): Promise<void> {
  guardTarget(opts, session);
  const mode = opts.inPlace ? 'in_place' : 'new_database';
  const plan = restorePlan(opts, mode, session);
  let backupJobId = '';
  const check = async () => {
    const known = await serviceCheck(session, opts.rule, opts.dryRun);
    backupJobId = known.selection!.backupJobId;
    return known;
  };
  const create = async (targetRedactedDsn: string) => {
    const body = { backupJobId, targetRedactedDsn, mode, confirmDestructive: mode === 'in_place' } as const;
    return (await (await session.api()).send(createRestore(body, opts.idempotencyKey))).data;
  };
  const result = restoredOrThrow(await runRestore(plan, { check, ...(opts.dryRun ? {} : { create }) }, restoreDeps(session)));
  if (result.dryRun) await renderDryRun(session, plan, result.check, result.preflight);
  else await renderOutcome(session, plan, result.outcome);
}
