import { getRestore } from '../../api/operations/restores.js';
import type { RestoreJob, RestoreJobState } from '../../api/schemas/restores.js';
import type { Session } from '../../session.js';
import { positiveSeconds, requireId } from '../shared/args.js';
import { assertSucceeded, POLL_INTERVAL_MS, pollUntilDone, type PollSpec } from '../shared/poll.js';
import { restoreJobBlocks } from './job-view.js';

const RESTORE_TERMINAL = new Set<RestoreJobState>(['completed', 'failed_terminal', 'cancelled', 'timed_out']);
const RESTORE_FAILED = new Set<RestoreJobState>(['failed_terminal', 'cancelled', 'timed_out']);

export interface GetRestoreOptions {
  restoreJobId: string;
  /** With --watch: how long to wait for a final state. */
  watchTimeoutMs: number | undefined;
}

export function options([id]: string[], flags: { watch?: boolean; waitTimeout?: string }): GetRestoreOptions {
  const waitTimeoutMs = positiveSeconds(flags.waitTimeout ?? '3600', '--wait-timeout') * 1000;
  return { restoreJobId: requireId(id, 'restore job id'), watchTimeoutMs: flags.watch ? waitTimeoutMs : undefined };
}

export async function run(opts: GetRestoreOptions, session: Session): Promise<void> {
  const api = await session.api();
  const fetch = async () => (await api.send(getRestore(opts.restoreJobId))).data;
  if (opts.watchTimeoutMs === undefined) {
    const data = await fetch();
    session.out.render(data, restoreJobBlocks(data.restoreJob, session.now()));
    return;
  }
  const spec: PollSpec<{ restoreJob: RestoreJob }> = {
    what: `Restore ${opts.restoreJobId}`,
    fetch,
    state: (body) => body.restoreJob.state,
    terminal: RESTORE_TERMINAL,
    failed: RESTORE_FAILED,
    intervalMs: POLL_INTERVAL_MS,
    timeoutMs: opts.watchTimeoutMs,
    checkAgain: `svc restore get ${opts.restoreJobId} --watch`,
    describeFailure: (body) =>
      body.restoreJob.errorKind ? `${body.restoreJob.errorKind}: ${body.restoreJob.errorMessage ?? ''}`.trim() : 'no error detail given',
  };
  const body = await pollUntilDone(session, spec);
  await session.out.render(body, restoreJobBlocks(body.restoreJob, session.now()));
  assertSucceeded(spec, body);
}
