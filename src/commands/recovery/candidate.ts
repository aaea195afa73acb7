import { getRecoveryCandidate } from '../../api/operations/recovery.js';
import { timestampWithAge } from '../../output/format.js';
import { fields, text } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { isoTimestamp, requireId } from '../shared/args.js';
import { nextCommand, verdictBlock, windowBlock } from './window.js';

export interface RecoveryCandidateOptions {
  databaseId: string;
  incidentTime: string;
}

export function options([id]: string[], flags: { incidentTime?: string }): RecoveryCandidateOptions {
  return { databaseId: requireId(id, 'database id'), incidentTime: isoTimestamp(flags.incidentTime, '--incident-time') };
}

export async function run(opts: RecoveryCandidateOptions, session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getRecoveryCandidate(opts.databaseId, opts.incidentTime));
  const now = session.now();
  session.out.render(data, [
    fields([['incident time', timestampWithAge(data.incidentTime, now)]]),
    verdictBlock(data),
    data.recommended
      ? windowBlock(data.recommended, now, 'Recommended candidate')
      : text('No restore-ready candidate before the incident time.', 'yellow'),
    nextCommand(opts.databaseId, data.recommended, session.ctx.env, data.incidentTime),
  ]);
}
