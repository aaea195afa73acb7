import { getRestore } from '../../api/operations/restores.js';
import type { RestoreJob, RestoreJobState } from '../../api/schemas/restores.js';
import type { Session } from '../../session.js';
import { positiveSeconds, requireId } from '../args.js';
import { assertSucceeded, POLL_INTERVAL_MS, pollUntilDone, type PollSpec } from '../poll.js';
import { restoreJobBlocks } from '../restore-view.js';

const RESTORE_TERMINAL = new Set<RestoreJobState>(['completed', 'failed_terminal', 'cancelled', 'timed_out']);
const RESTORE_FAILED = new Set<RestoreJobState>(['failed_terminal', 'cancelled', 'timed_out']);

export async function runRestoreGet(session: Session, rawId: string, flags: { watch?: boolean; waitTimeout: string }): Promise<void> {
  const restoreJobId = requireId(rawId, 'restore job id');
  const watch = flags.watch ? { timeoutMs: positiveSeconds(flags.waitTimeout, '--wait-timeout') * 1000 } : undefined;
  const api = await session.api();
  if (!watch) {
    const { data } = await api.send(getRestore(restoreJobId));
    session.out.render(data, restoreJobBlocks(data.restoreJob, session.now()));
    return;
  }
  const spec: PollSpec<{ restoreJob: RestoreJob }> = {
    what: `Restore ${restoreJobId}`,
    fetch: async () => (await api.send(getRestore(restoreJobId))).data,
    state: (body) => body.restoreJob.state,
    terminal: RESTORE_TERMINAL,
    failed: RESTORE_FAILED,
    intervalMs: POLL_INTERVAL_MS,
    timeoutMs: watch.timeoutMs,
    describeFailure: (body) =>
      body.restoreJob.errorKind ? `${body.restoreJob.errorKind}: ${body.restoreJob.errorMessage ?? ''}`.trim() : 'no error detail given',
  };
  const body = await pollUntilDone(session, spec);
  session.out.render(body, restoreJobBlocks(body.restoreJob, session.now()));
  assertSucceeded(spec, body);
}
