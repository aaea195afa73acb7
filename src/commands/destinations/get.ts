import { getDestination } from '../../api/operations/destinations.js';
import { timestampWithAge } from '../../output/format.js';
import { fields } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';

export interface GetDestinationOptions {
  destinationId: string;
}

export function options([id]: string[]): GetDestinationOptions {
  return { destinationId: requireId(id, 'destination id') };
}

export async function run(opts: GetDestinationOptions, session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getDestination(opts.destinationId));
  const d = data.destination;
  const now = session.now();
  await session.out.render(data, [
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
