import { listDatabaseBackups } from '../../api/operations/backups.js';
import type { BackupJobSummary } from '../../api/schemas/backups.js';
import { relativeAge, stateStyle } from '../../output/format.js';
import type { Column } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';
import { pageOptions, runList, type PageFlags, type PageOptions } from '../shared/paging.js';
import { notProofNote } from '../../core/proof.js';

export interface BackupsListOptions extends PageOptions {
  databaseId: string;
}

const columns = (now: Date): Column<BackupJobSummary>[] => [
  { header: 'ID', value: (b) => b.id },
  { header: 'STATE', value: (b) => b.state, style: (b) => stateStyle(b.state) },
  { header: 'TRIGGER', value: (b) => b.trigger, drop: 3 },
  { header: 'ATTEMPT', value: (b) => String(b.attempt), drop: 1 },
  { header: 'ENQUEUED', value: (b) => relativeAge(b.enqueuedAt, now), drop: 4 },
  { header: 'CLAIMED', value: (b) => (b.claimedAt ? relativeAge(b.claimedAt, now) : '-'), drop: 2 },
];

export function options([id]: string[], flags: PageFlags): BackupsListOptions {
  return { databaseId: requireId(id, 'database id'), ...pageOptions(flags) };
}

export function run(opts: BackupsListOptions, session: Session): Promise<void> {
  const { databaseId } = opts;
  return runList(session, opts, {
    op: (page) => listDatabaseBackups(databaseId, page),
    itemsKey: 'backupJobs',
    columns: columns(session.now()),
    empty: `No backup jobs for ${databaseId}. Start one with: ${session.svcCommand(['backups', 'trigger'], [databaseId])}`,
    after: () => [notProofNote()],
    // Newest first, as gh lists runs, whatever order a page came in (cli-contract 4, v4).
    order: (a, b) => Date.parse(b.enqueuedAt) - Date.parse(a.enqueuedAt) || (a.id < b.id ? 1 : -1),
  });
}
