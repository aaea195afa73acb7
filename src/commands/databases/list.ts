import { listDatabases } from '../../api/operations/databases.js';
import type { ProtectedDatabaseSummary } from '../../api/schemas/databases.js';
import { relativeAge, stateStyle } from '../../output/format.js';
import type { Column } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { pageOptions, runList, type PageFlags, type PageOptions } from '../shared/paging.js';

/** On a narrow terminal the region goes first, then retention, provider and the last backup's age; id, name and state stay. */
const columns = (now: Date): Column<ProtectedDatabaseSummary>[] => [
  { header: 'ID', value: (d) => d.id },
  { header: 'NAME', value: (d) => d.name, shrink: true },
  { header: 'PROVIDER', value: (d) => d.provider, drop: 3 },
  { header: 'STATE', value: (d) => d.state, style: (d) => stateStyle(d.state) },
  { header: 'REGION', value: (d) => d.dataResidency, drop: 1 },
  { header: 'RETENTION', value: (d) => `${d.retentionPolicyDays}d`, drop: 2 },
  {
    header: 'LAST COMPLETED BACKUP',
    short: 'LAST BACKUP',
    value: (d) => (d.lastSuccessfulBackupAt ? relativeAge(d.lastSuccessfulBackupAt, now) : 'never'),
    drop: 4,
  },
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
