import { getDatabase, listDatabases } from '../../api/operations/databases.js';
import type { ProtectedDatabaseSummary } from '../../api/schemas/databases.js';
import { orDash, relativeAge, timestampWithAge } from '../../output/format.js';
import { fields, type Column } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId, type PageFlags } from '../args.js';
import { runList } from '../list.js';
import { notProofNote } from '../proof.js';

const columns = (now: Date): Column<ProtectedDatabaseSummary>[] => [
  { header: 'ID', value: (d) => d.id },
  { header: 'NAME', value: (d) => d.name },
  { header: 'PROVIDER', value: (d) => d.provider },
  { header: 'STATE', value: (d) => d.state },
  { header: 'REGION', value: (d) => d.dataResidency },
  { header: 'RETENTION', value: (d) => `${d.retentionPolicyDays}d` },
  { header: 'LAST COMPLETED BACKUP', value: (d) => (d.lastSuccessfulBackupAt ? relativeAge(d.lastSuccessfulBackupAt, now) : 'never') },
];

export function runDatabasesList(session: Session, flags: PageFlags): Promise<void> {
  return runList(session, flags, {
    op: listDatabases,
    itemsKey: 'databases',
    columns: columns(session.now()),
    empty: 'No protected databases. Databases are added in the dashboard.',
  });
}

export async function runDatabasesGet(session: Session, rawId: string): Promise<void> {
  const databaseId = requireId(rawId, 'database id');
  const { data } = await (await session.api()).send(getDatabase(databaseId));
  const d = data.database;
  const now = session.now();
  session.out.render(data, [
    fields([
      ['id', d.id],
      ['name', d.name],
      ['organization', d.organizationId],
      ['provider', d.provider],
      ['state', d.state, d.state === 'active' ? 'green' : 'yellow'],
      ['data residency', d.dataResidency],
      ['backup schedule', d.scheduleCron ? `${d.scheduleCron} (${d.scheduleTimezone})` : `none (${d.scheduleTimezone})`],
      ['restore drills', d.restoreDrillCron ? `${d.restoreDrillCron} (${d.restoreDrillTimezone})` : `none (${d.restoreDrillTimezone})`],
      ['retention', `${d.retentionPolicyDays} days`],
      ['last completed backup', orDash(d.lastSuccessfulBackupAt && timestampWithAge(d.lastSuccessfulBackupAt, now))],
      ['created', timestampWithAge(d.createdAt, now)],
    ]),
    notProofNote(),
  ]);
}
