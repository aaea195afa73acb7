import type { RecoveryWindowDecision } from '../../api/schemas/recovery.js';
import { orDash, timestampWithAge, yesNo } from '../../output/format.js';
import { terminalLine } from '../../output/terminal-text.js';
import { commandsNote, fields, note, type Block, type Field } from '../../output/writer.js';
import type { Session } from '../../session.js';

/** A recovery window decision as a key/value block: summary, candidate and proof show the same. */
export function windowBlock(w: RecoveryWindowDecision, now: Date, title: string, opts: { withAction?: boolean } = {}): Block {
  return fields(
    [
      ['window', w.windowId],
      ['proof status', w.proofStatus, w.proofStatus === 'verified' ? 'green' : 'yellow'],
      ['custody', w.custodyStatus, w.custodyStatus === 'complete' ? 'green' : 'yellow'],
      ['snapshot time', timestampWithAge(w.snapshotTime, now)],
      ['validated through', timestampWithAge(w.validatedThrough, now)],
      ['target cursor', w.targetCursor],
      ['gap before incident', w.gapBeforeIncidentSeconds === null ? '-' : `${w.gapBeforeIncidentSeconds}s`],
      ['segments', String(w.segmentCount)],
      ['schema digest', orDash(w.schemaDigest)],
      ['restore available', yesNo(w.restoreAvailable)],
      ['export available', yesNo(w.exportAvailable)],
      ['reason', w.reason ?? undefined],
      ['summary', w.summary],
      ...(opts.withAction === false ? [] : [['recommended action', w.recommendedAction] as Field]),
    ],
    title,
  );
}

export function verdictBlock(body: { reason: string | null; summary: string; recommendedAction: string }): Block {
  return fields([
    ['summary', body.summary],
    ['reason', body.reason ?? undefined],
    ['recommended action', body.recommendedAction],
  ]);
}

/** The target of a printed restore command: none where SVC_TARGET_DSN is set, else a URI to fill in. */
function targetWords(env: Record<string, string | undefined>): string[] {
  return env.SVC_TARGET_DSN ? [] : ['--target', 'postgresql://USER@HOST:5432/NEW_DATABASE'];
}

/**
 * The next command, in full (issue 18: the incident path without copying ids): restore the
 * recommended window's baseline backup, or, where no window is restorable, the newest backup of the
 * database (before the incident, for a candidate). Said on stderr, beside the data: a line saying
 * what it does, then the command alone on its lines, broken only as shell continuations, so that
 * what is pasted runs (cli-contract 4, v4). The ids come from the service: the commands are built
 * from argument vectors (cli-contract 7.16 c), never pasted into a string.
 */
export function nextCommand(
  databaseId: string,
  window: RecoveryWindowDecision | null,
  session: Pick<Session, 'svcCommand' | 'ctx'>,
  incidentTime?: string,
): Block[] {
  const env = session.ctx.env;
  const chosen = window?.restoreAvailable
    ? ['--window', window.windowId]
    : ['--database', databaseId, ...(incidentTime ? ['--before', incidentTime] : ['--latest'])];
  const restore = session.svcCommand(['restore', 'create', ...chosen, ...targetWords(env)]);
  const why = window?.restoreAvailable
    ? `restore window ${terminalLine(window.windowId)}'s baseline backup into a new database`
    : `restore the newest completed backup${incidentTime ? ' from before the incident' : ''}, since no recovery window is restorable`;
  const envNote = env.SVC_TARGET_DSN ? ' (the target from SVC_TARGET_DSN)' : '';
  return [
    note(`Next: ${why}${envNote}; add --dry-run to check it first:`, 'dim'),
    commandsNote([`  ${restore}`]),
    note('To rehearse without touching anything:', 'dim'),
    commandsNote([`  ${session.svcCommand(['restore', 'drill'], [databaseId])}`]),
  ];
}
