import { getRecoveryCandidate } from '../../api/operations/recovery.js';
import { timestampWithAge } from '../../output/format.js';
import { terminalLine } from '../../output/terminal-text.js';
import { fields, note, text } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId, typedTimestamp } from '../../core/args.js';
import { nextCommand, verdictBlock, windowBlock } from './window.js';

export interface RecoveryCandidateOptions {
  databaseId: string;
  incidentTime: string;
  /** How a time given without a zone was read, said on stderr. */
  zoneNote?: string;
}

export function options([id]: string[], flags: { incidentTime?: string }): RecoveryCandidateOptions {
  const { iso, zone } = typedTimestamp(flags.incidentTime, '--incident-time');
  return { databaseId: requireId(id, 'database id'), incidentTime: iso, ...(zone ? { zoneNote: zone } : {}) };
}

/**
 * One recommendation on the screen (cli-contract 4, v4): the candidate's, the service's answer for
 * this incident time. The window's own recommended action (what getRecoverySummary says of the
 * window's health, "No action needed." for a sound one) is left out of the block and, where it
 * differs, said on stderr as what it is.
 */
export async function run(opts: RecoveryCandidateOptions, session: Session): Promise<void> {
  if (opts.zoneNote) session.ui.info(opts.zoneNote);
  const { data } = await (await session.api()).send(getRecoveryCandidate(opts.databaseId, opts.incidentTime));
  const now = session.now();
  const candidate = data.recommended;
  const differs = candidate && candidate.recommendedAction !== data.recommendedAction;
  await session.out.render(data, [
    fields([['incident time', timestampWithAge(data.incidentTime, now)]]),
    verdictBlock(data),
    candidate
      ? windowBlock(candidate, now, 'Recommended candidate', { withAction: false })
      : text('No restore-ready candidate before the incident time.', 'yellow'),
    ...(differs
      ? [
          note(
            `The service's summary of window ${terminalLine(candidate.windowId)} says "${terminalLine(candidate.recommendedAction)}": that is the window's own state (${session.svcCommand(['recovery', 'summary'], [opts.databaseId])}), not a step for this incident.`,
          ),
        ]
      : []),
    ...nextCommand(opts.databaseId, candidate, session, data.incidentTime),
  ]);
}
