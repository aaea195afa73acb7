import { text as readStream } from 'node:stream/consumers';
import { createRestoreResponse } from '../../api/schemas/restores.js';
import { UsageError } from '../../errors.js';
import { restoredOrThrow, runRestore } from '../../restore/run.js';
import type { Session } from '../../session.js';
import type { Env } from '../shared/verb.js';
import { engineOptions, guardTarget, restoreDeps, restorePlan, type EngineFlags, type EngineOptions } from '../../core/restore/engine-options.js';
import { renderOutcome } from './outcome.js';

export function options(_args: string[], flags: EngineFlags, env: Env): EngineOptions {
  return engineOptions(flags, env);
}

/** `svc restore run`: the createRestore 202 body on stdin, then the same local run. */
export async function run(opts: EngineOptions, session: Session): Promise<void> {
  guardTarget(opts, session);
  if (session.ctx.stdinIsTTY) {
    throw new UsageError('restore run reads the createRestore response from standard input.', 'Pipe it in: svc restore run --target ... < restore.json');
  }
  const input = await readStream(session.ctx.stdin);
  let json: unknown;
  try {
    json = JSON.parse(input);
  } catch {
    throw new UsageError('Standard input is not JSON: restore run expects the createRestore 202 body {restoreJob, execution}.');
  }
  const parsed = createRestoreResponse.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`Standard input is not a createRestore response: ${issue?.path.join('.') || '(body)'}: ${issue?.message}.`);
  }
  const created = parsed.data;
  session.secrets.add(created.execution.lockToken);
  session.secrets.add(created.execution.presignedS3Url);
  const mode = created.restoreJob.mode;
  if (opts.inPlace !== undefined && (mode === 'in_place') !== opts.inPlace) {
    throw new UsageError(`The restore job's mode is ${mode}; --in-place ${opts.inPlace ? 'contradicts' : 'is required for'} it.`);
  }
  const plan = restorePlan(opts, mode, session);
  const result = restoredOrThrow(await runRestore(plan, { created }, restoreDeps(session)));
  if (!result.dryRun) await renderOutcome(session, plan, result.outcome);
}
