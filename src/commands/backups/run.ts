import { randomUUID } from 'node:crypto';
import { getBackup, listDatabaseBackups, triggerBackup } from '../../api/operations/backups.js';
import type { BackupJobDetail, BackupJobState, BackupJobSummary } from '../../api/schemas/backups.js';
import { formatBytes, orDash, relativeAge, timestampWithAge } from '../../output/format.js';
import { fields, text, type Block, type Column, type Field } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { idempotencyKey, positiveSeconds, requireId, type PageFlags } from '../args.js';
import { runList } from '../list.js';
import { assertSucceeded, POLL_INTERVAL_MS, pollUntilDone, type PollSpec } from '../poll.js';
import { COMPLETED_IS_NOT_PROOF, notProofNote } from '../proof.js';

const columns = (now: Date): Column<BackupJobSummary>[] => [
  { header: 'ID', value: (b) => b.id },
  { header: 'STATE', value: (b) => b.state },
  { header: 'TRIGGER', value: (b) => b.trigger },
  { header: 'ATTEMPT', value: (b) => String(b.attempt) },
  { header: 'ENQUEUED', value: (b) => relativeAge(b.enqueuedAt, now) },
  { header: 'CLAIMED', value: (b) => (b.claimedAt ? relativeAge(b.claimedAt, now) : '-') },
];

export function runBackupsList(session: Session, rawId: string, flags: PageFlags): Promise<void> {
  const databaseId = requireId(rawId, 'database id');
  return runList(session, flags, {
    op: (page) => listDatabaseBackups(databaseId, page),
    itemsKey: 'backupJobs',
    columns: columns(session.now()),
    empty: `No backup jobs for ${databaseId}. Start one with: svc backups trigger ${databaseId}`,
    after: () => [notProofNote()],
  });
}

/** The job detail as a key/value block; shared with `backups trigger --wait`. */
export function backupDetailBlocks(job: BackupJobDetail, now: Date): Block[] {
  const stateStyle = job.state === 'completed' ? 'green' : job.state.startsWith('failed') || job.state === 'timed_out' ? 'red' : undefined;
  const rows: Field[] = [
    ['id', job.id],
    ['database', job.protectedDatabaseId],
    ['destination', job.destinationId],
    ['state', job.state, stateStyle],
    ['trigger', job.trigger],
    ['attempt', String(job.attempt)],
    ['enqueued', timestampWithAge(job.enqueuedAt, now)],
    ['claimed', job.claimedAt && timestampWithAge(job.claimedAt, now)],
    ['started', job.startedAt && timestampWithAge(job.startedAt, now)],
    ['completed', job.completedAt && timestampWithAge(job.completedAt, now)],
    ['error', job.errorKind && `${job.errorKind}: ${orDash(job.errorMessage)}`],
  ];
  const blocks: Block[] = [fields(rows)];
  if (job.artifact) {
    blocks.push(
      fields(
        [
          ['key', job.artifact.artifactKey],
          ['manifest', job.artifact.manifestObjectKey],
          ['size', formatBytes(job.artifact.sizeBytes)],
          ['sha-256', job.artifact.checksumSha256],
          ['recorded', timestampWithAge(job.artifact.recordedAt, now)],
        ],
        'Artifact',
      ),
    );
  }
  if (job.state === 'completed') blocks.push(notProofNote());
  return blocks;
}

export async function runBackupsGet(session: Session, rawId: string): Promise<void> {
  const backupJobId = requireId(rawId, 'backup job id');
  const { data } = await (await session.api()).send(getBackup(backupJobId));
  session.out.render(data, backupDetailBlocks(data, session.now()));
}

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
  waitTimeout: string;
}

export function triggerOptions(rawId: string, flags: TriggerFlags): TriggerOptions {
  return {
    databaseId: requireId(rawId, 'database id'),
    idempotencyKey: idempotencyKey(flags.idempotencyKey),
    wait: flags.wait === true,
    waitTimeoutMs: positiveSeconds(flags.waitTimeout, '--wait-timeout') * 1000,
  };
}

export async function runBackupsTrigger(session: Session, opts: TriggerOptions): Promise<void> {
  const api = await session.api();
  // One key per invocation; the client reuses it on every retry, and a replayed 202 is success.
  const key = opts.idempotencyKey ?? randomUUID();
  const { data: accepted } = await api.send(triggerBackup(opts.databaseId, key));
  if (!opts.wait) {
    session.out.render(accepted, [
      fields([
        ['backup job', accepted.backupJobId],
        ['state', accepted.state],
        ['enqueued', timestampWithAge(accepted.enqueuedAt, session.now())],
      ]),
      text(`Follow it with: svc backups get ${accepted.backupJobId}  (or run trigger with --wait)`, 'dim'),
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
    describeFailure: (job) => (job.errorKind ? `${job.errorKind}: ${job.errorMessage ?? ''}`.trim() : 'no error detail given'),
  };
  const job = await pollUntilDone(session, spec);
  const summary =
    job.state === 'completed' && job.artifact
      ? [text(`Backup completed: artifact ${formatBytes(job.artifact.sizeBytes)}, SHA-256 ${job.artifact.checksumSha256}.`, 'green')]
      : [];
  session.out.render(job, [...summary, ...backupDetailBlocks(job, session.now())]);
  // Human output carries the caveat on stdout; under --json it goes to stderr so it is still seen.
  if (job.state === 'completed' && session.settings.json) session.ui.info(COMPLETED_IS_NOT_PROOF);
  assertSucceeded(spec, job);
}
