import { getRestore } from '../../api/operations/restores.js';
import type { RestoreJob, RestoreJobState } from '../../api/schemas/restores.js';
import type { Session } from '../../session.js';
import { positiveSeconds, requireId } from '../../core/args.js';
import { assertSucceeded, POLL_INTERVAL_MS, pollUntilDone, type PollSpec } from '../shared/poll.js';
import { restoreJobBlocks } from './job-view.js';
import { note, type Block } from '../../output/writer.js';

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
    await session.out.render(data, [...restoreJobBlocks(data.restoreJob, session.now()), ...serviceViewNote(data.restoreJob)]);
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
    checkAgain: session.svcCommand(['restore', 'get', '--watch'], [opts.restoreJobId]),
    describeFailure: (body) =>
      body.restoreJob.errorKind ? `${body.restoreJob.errorKind}: ${body.restoreJob.errorMessage ?? ''}`.trim() : 'no error detail given',
  };
  const body = await pollUntilDone(session, spec);
  await session.out.render(body, restoreJobBlocks(body.restoreJob, session.now()));
  assertSucceeded(spec, body);
}

/**
 * What the service's record is (cli-contract 4, v4): it tracks the job svc created; the restore itself
 * ran on the machine that ran svc, and API v1 has no operation to tell the service how it went. A
 * job still `queued` or with `verified restore: no` says nothing about that local run.
 */
function serviceViewNote(job: RestoreJob): Block[] {
  const said = [job.state === 'completed' ? '' : `"state: ${job.state}"`, job.proof.verifiedRestore ? '' : '"verified restore: no"'].filter(Boolean);
  if (!said.length) return [];
  return [
    note(
      `This is the service's record of the job: svc restores on the machine it runs on, and API v1 has no operation to tell the service the outcome, so ${said.join(' and ')} ${said.length > 1 ? 'do' : 'does'} not say how the local restore went. The run's own output and its receipt (--receipt) are the local proof.`,
    ),
  ];
}
