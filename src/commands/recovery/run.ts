import { getRecoveryCandidate, getRecoverySummary, getRecoveryWindowProof } from '../../api/operations/recovery.js';
import type { RecoveryWindowDecision } from '../../api/schemas/recovery.js';
import { orDash, timestampWithAge, yesNo } from '../../output/format.js';
import { fields, text, type Block } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { isoTimestamp, requireId } from '../args.js';

function windowBlock(w: RecoveryWindowDecision, now: Date, title: string): Block {
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

function verdictBlocks(body: { reason: string | null; summary: string; recommendedAction: string }): Block[] {
  return [
    fields([
      ['summary', body.summary],
      ['reason', body.reason ?? undefined],
      ['recommended action', body.recommendedAction],
    ]),
  ];
}

export async function runRecoverySummary(session: Session, rawId: string): Promise<void> {
  const databaseId = requireId(rawId, 'database id');
  const { data } = await (await session.api()).send(getRecoverySummary(databaseId));
  const now = session.now();
  session.out.render(data, [
    ...verdictBlocks(data),
    data.latest ? windowBlock(data.latest, now, 'Latest recovery window') : text('No recovery window recorded yet.', 'yellow'),
  ]);
}

export async function runRecoveryCandidate(session: Session, rawId: string, rawIncidentTime: string): Promise<void> {
  const databaseId = requireId(rawId, 'database id');
  const incidentTime = isoTimestamp(rawIncidentTime, '--incident-time');
  const { data } = await (await session.api()).send(getRecoveryCandidate(databaseId, incidentTime));
  const now = session.now();
  session.out.render(data, [
    fields([['incident time', timestampWithAge(data.incidentTime, now)]]),
    ...verdictBlocks(data),
    data.recommended
      ? windowBlock(data.recommended, now, 'Recommended candidate')
      : text('No restore-ready candidate before the incident time.', 'yellow'),
  ]);
}

export async function runRecoveryProof(session: Session, rawId: string): Promise<void> {
  const windowId = requireId(rawId, 'window id');
  const { data } = await (await session.api()).send(getRecoveryWindowProof(windowId));
  const now = session.now();
  const { baselineArtifact, cursorChain, schemaDigest } = data.proof;
  session.out.render(data, [
    windowBlock(data.window, now, 'Recovery window'),
    fields(
      [
        ['baseline backup job', orDash(baselineArtifact.backupJobId)],
        ['baseline retained', yesNo(baselineArtifact.retained), baselineArtifact.retained ? 'green' : 'red'],
        ['baseline sha-256', orDash(baselineArtifact.checksumSha256)],
        ['cursor chain target', cursorChain.targetCursor],
        ['cursor chain segments', String(cursorChain.segmentCount)],
        ['cursor chain contiguous', yesNo(cursorChain.contiguous), cursorChain.contiguous ? 'green' : 'red'],
        ['schema digest', orDash(schemaDigest)],
      ],
      'Proof',
    ),
  ]);
}
