import { listDestinations } from '../../api/operations/destinations.js';
import type { BackupDestinationSummary } from '../../api/schemas/destinations.js';
import { orDash, relativeAge } from '../../output/format.js';
import type { Column } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { pageOptions, runList, type PageFlags, type PageOptions } from '../shared/paging.js';

const columns = (now: Date): Column<BackupDestinationSummary>[] => [
  { header: 'ID', value: (d) => d.id },
  { header: 'KIND', value: (d) => d.kind, drop: 4 },
  { header: 'REGION', value: (d) => d.region, drop: 2 },
  { header: 'BUCKET', value: (d) => orDash(d.bucketName), shrink: true, drop: 3 },
  { header: 'STATE', value: (d) => d.state },
  { header: 'RETENTION FLOOR', short: 'RETENTION', value: (d) => `${d.retentionFloorDays}d`, drop: 1 },
  { header: 'LAST VERIFIED', short: 'VERIFIED', value: (d) => (d.lastVerifiedAt ? relativeAge(d.lastVerifiedAt, now) : 'never'), drop: 5 },
];

export function options(_args: string[], flags: PageFlags): PageOptions {
  return pageOptions(flags);
}

export function run(opts: PageOptions, session: Session): Promise<void> {
  return runList(session, opts, {
    op: listDestinations,
    itemsKey: 'destinations',
    columns: columns(session.now()),
    empty: 'No backup destinations. Destinations are configured in the dashboard.',
  });
}
