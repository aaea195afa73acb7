import { getBackup, triggerBackup } from '../../api/operations/backups.js';
import type { BackupJobDetail, BackupJobState } from '../../api/schemas/backups.js';
import { timestampWithAge } from '../../output/format.js';
import { fields, note } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { idempotencyKey, positiveSeconds, requireId } from '../../core/args.js';
import { assertSucceeded, POLL_INTERVAL_MS, pollUntilDone, type PollSpec } from '../shared/poll.js';
import { COMPLETED_IS_NOT_PROOF } from '../../core/proof.js';
import { backupDetailBlocks } from './detail.js';

const BACKUP_TERMINAL = new Set<BackupJobState>(['completed', 'failed_terminal', 'cancelled', 'timed_out']);
// failed_retryable is not terminal: the service retries the job itself, so --wait keeps waiting.
const BACKUP_FAILED = new Set<BackupJobState>(['failed_terminal', 'cancelled', 'timed_out']);

export interface TriggerOptions {
  databaseId: string;
  idempotencyKey?: string;
  wait: boolean;
  waitTimeoutMs: number;
}

export interface TriggerFlags {
  idempotencyKey?: string;
  wait?: boolean;
  waitTimeout?: string;
}

export function options([id]: string[], flags: TriggerFlags): TriggerOptions {
  return {
    databaseId: requireId(id, 'database id'),
    idempotencyKey: idempotencyKey(flags.idempotencyKey),
    wait: flags.wait === true,
    waitTimeoutMs: positiveSeconds(flags.waitTimeout ?? '3600', '--wait-timeout') * 1000,
  };
}

export async function run(opts: TriggerOptions, session: Session): Promise<void> {
  const api = await session.api();
  // A replayed 202 for the same key is success; the client reuses the key on every retry.
  const { data: accepted } = await api.send(triggerBackup(opts.databaseId, opts.idempotencyKey));
  if (!opts.wait) {
    await session.out.render(accepted, [
      fields([
        ['backup job', accepted.backupJobId],
        ['state', accepted.state],
        ['enqueued', timestampWithAge(accepted.enqueuedAt, session.now())],
      ]),
      note(`Follow it with: ${session.svcCommand(['backups', 'get'], [accepted.backupJobId])}  (or run trigger with --wait)`, 'dim'),
    ]);
    return;
  }
  const spec: PollSpec<BackupJobDetail> = {
    what: `Backup ${accepted.backupJobId}`,
    fetch: async () => (await api.send(getBackup(accepted.backupJobId))).data,
    state: (job) => job.state,
    terminal: BACKUP_TERMINAL,
    failed: BACKUP_FAILED,
    intervalMs: POLL_INTERVAL_MS,
    timeoutMs: opts.waitTimeoutMs,
    checkAgain: session.svcCommand(['backups', 'get'], [accepted.backupJobId]),
    describeFailure: (job) => (job.errorKind ? `${job.errorKind}: ${job.errorMessage ?? ''}`.trim() : 'no error detail given'),
  };
  const job = await pollUntilDone(session, spec);
  // The spinner's last line said how it ended; the job detail (with the caveat on stderr) follows.
  await session.out.render(job, backupDetailBlocks(job, session.now()));
  // Someone waited for this backup: under --json too, the caveat is said where a person sees it.
  if (job.state === 'completed' && session.settings.json) session.ui.info(COMPLETED_IS_NOT_PROOF);
  assertSucceeded(spec, job);
}
