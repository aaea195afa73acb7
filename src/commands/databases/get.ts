import { getDatabase } from '../../api/operations/databases.js';
import { orDash, timestampWithAge } from '../../output/format.js';
import { fields } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';
import { notProofNote } from '../../core/proof.js';

export interface GetDatabaseOptions {
  databaseId: string;
}

export function options([id]: string[]): GetDatabaseOptions {
  return { databaseId: requireId(id, 'database id') };
}

export async function run(opts: GetDatabaseOptions, session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getDatabase(opts.databaseId));
  const d = data.database;
  const now = session.now();
  await session.out.render(data, [
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
