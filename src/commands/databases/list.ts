import { listDatabases } from '../../api/operations/databases.js';
import type { ProtectedDatabaseSummary } from '../../api/schemas/databases.js';
import { relativeAge } from '../../output/format.js';
import type { Column } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { pageOptions, runList, type PageFlags, type PageOptions } from '../shared/paging.js';

const columns = (now: Date): Column<ProtectedDatabaseSummary>[] => [
  { header: 'ID', value: (d) => d.id },
  { header: 'NAME', value: (d) => d.name, shrink: true },
  { header: 'PROVIDER', value: (d) => d.provider },
  { header: 'STATE', value: (d) => d.state },
  { header: 'REGION', value: (d) => d.dataResidency },
  { header: 'RETENTION', value: (d) => `${d.retentionPolicyDays}d` },
  { header: 'LAST COMPLETED BACKUP', value: (d) => (d.lastSuccessfulBackupAt ? relativeAge(d.lastSuccessfulBackupAt, now) : 'never') },
];

export function options(_args: string[], flags: PageFlags): PageOptions {
  return pageOptions(flags);
}

export function run(opts: PageOptions, session: Session): Promise<void> {
  return runList(session, opts, {
    op: listDatabases,
    itemsKey: 'databases',
    columns: columns(session.now()),
    empty: 'No protected databases. Databases are added in the dashboard.',
  });
}
