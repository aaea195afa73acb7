import type { RecoveryWindowDecision } from '../../api/schemas/recovery.js';
import { orDash, timestampWithAge, yesNo } from '../../output/format.js';
import { fields, type Block } from '../../output/writer.js';

/** A recovery window decision as a key/value block: summary, candidate and proof show the same. */
export function windowBlock(w: RecoveryWindowDecision, now: Date, title: string): Block {
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
      ['recommended action', w.recommendedAction],
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
