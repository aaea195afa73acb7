import { getDestination, listDestinations } from '../../api/operations/destinations.js';
import type { BackupDestinationSummary } from '../../api/schemas/destinations.js';
import { orDash, relativeAge, timestampWithAge } from '../../output/format.js';
import { fields, type Column } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId, type PageFlags } from '../args.js';
import { runList } from '../list.js';

const columns = (now: Date): Column<BackupDestinationSummary>[] => [
  { header: 'ID', value: (d) => d.id },
  { header: 'KIND', value: (d) => d.kind },
  { header: 'REGION', value: (d) => d.region },
  { header: 'BUCKET', value: (d) => orDash(d.bucketName) },
  { header: 'STATE', value: (d) => d.state },
  { header: 'RETENTION FLOOR', value: (d) => `${d.retentionFloorDays}d` },
  { header: 'LAST VERIFIED', value: (d) => (d.lastVerifiedAt ? relativeAge(d.lastVerifiedAt, now) : 'never') },
];

export function runDestinationsList(session: Session, flags: PageFlags): Promise<void> {
  return runList(session, flags, {
    op: listDestinations,
    itemsKey: 'destinations',
    columns: columns(session.now()),
    empty: 'No backup destinations. Destinations are configured in the dashboard.',
  });
}

export async function runDestinationsGet(session: Session, rawId: string): Promise<void> {
  const destinationId = requireId(rawId, 'destination id');
  const { data } = await (await session.api()).send(getDestination(destinationId));
  const d = data.destination;
  const now = session.now();
  session.out.render(data, [
    fields([
      ['id', d.id],
      ['organization', d.organizationId],
      ['kind', d.kind],
      ['region', d.region],
      ['bucket', d.bucketName],
      ['bucket ARN', d.bucketArn],
      ['state', d.state, d.state === 'verified' ? 'green' : 'yellow'],
      ['retention floor', `${d.retentionFloorDays} days`],
      ['last verified', d.lastVerifiedAt ? timestampWithAge(d.lastVerifiedAt, now) : 'never'],
      ['created', timestampWithAge(d.createdAt, now)],
    ]),
  ]);
}
