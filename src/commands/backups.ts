import type { Command } from 'commander';
import { getBackup, listDatabaseBackups } from '../api/operations.js';
import type { BackupJobDetail, BackupJobSummary } from '../api/schemas/backups.js';
import { formatBytes, orDash, relativeAge, timestampWithAge } from '../output/format.js';
import { fields, type Block, type Column, type Field } from '../output/writer.js';
import type { Session } from '../session.js';
import { requireId, type PageFlags } from './args.js';
import { examples, type CommandHost } from './host.js';
import { runList } from './list.js';
import { notProofNote } from './proof.js';

const columns = (now: Date): Column<BackupJobSummary>[] => [
  { header: 'ID', value: (b) => b.id },
  { header: 'STATE', value: (b) => b.state },
  { header: 'TRIGGER', value: (b) => b.trigger },
  { header: 'ATTEMPT', value: (b) => String(b.attempt) },
  { header: 'ENQUEUED', value: (b) => relativeAge(b.enqueuedAt, now) },
  { header: 'CLAIMED', value: (b) => (b.claimedAt ? relativeAge(b.claimedAt, now) : '-') },
];

export function runBackupsList(session: Session, databaseId: string, flags: PageFlags): Promise<void> {
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
  blocks.push(notProofNote());
  return blocks;
}

export async function runBackupsGet(session: Session, backupJobId: string): Promise<void> {
  const { data } = await (await session.api()).send(getBackup(backupJobId));
  session.out.render(data, backupDetailBlocks(data, session.now()));
}

export function registerBackups(program: Command, host: CommandHost): Command {
  const backups = program.command('backups').description('Backup jobs of a protected database');
  backups
    .command('list')
    .description("List a database's backup jobs (listDatabaseBackups)")
    .argument('<databaseId>', 'database id')
    .option('--limit <n>', 'page size')
    .option('--cursor <cursor>', 'start from this page cursor')
    .option('--all', 'follow every page and print them as one list')
    .addHelpText('after', examples('svc backups list db_123', 'svc backups list db_123 --all --json'))
    .action((id: string, flags: PageFlags, cmd: Command) =>
      host.run(cmd, (s) => runBackupsList(s, requireId(id, 'database id'), flags)),
    );
  backups
    .command('get')
    .description('Show a backup job and its artifact (getBackup)')
    .argument('<backupJobId>', 'backup job id')
    .addHelpText('after', examples('svc backups get bj_123', 'svc backups get bj_123 --json | jq .artifact.checksumSha256'))
    .action((id: string, _flags, cmd: Command) => host.run(cmd, (s) => runBackupsGet(s, requireId(id, 'backup job id'))));
  return backups;
}
