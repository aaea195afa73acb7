import { getEvidence, listEvidence } from '../../api/operations/evidence.js';
import type { EvidenceItem, ProofSemantics } from '../../api/schemas/evidence.js';
import { formatBytes, relativeAge, timestampWithAge } from '../../output/format.js';
import { fields, table, type Column } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId, type PageFlags } from '../args.js';
import { runList } from '../list.js';
import { proofSemanticsBlock } from '../proof.js';

const integrity = (e: EvidenceItem): string =>
  e.integrityVerification ? e.integrityVerification.result : 'not verified';

const columns = (now: Date): Column<EvidenceItem>[] => [
  { header: 'BACKUP JOB', value: (e) => e.backupJobId },
  { header: 'SIZE', value: (e) => formatBytes(e.sizeBytes).split(' (')[0] ?? '' },
  { header: 'SHA-256', value: (e) => `${e.checksumSha256.slice(0, 12)}…` },
  { header: 'RECORDED', value: (e) => relativeAge(e.recordedAt, now) },
  { header: 'INTEGRITY CHECK', value: integrity },
  { header: 'AUDIT EVENTS', value: (e) => String(e.auditEvents.length) },
];

export function runEvidenceList(session: Session, flags: PageFlags & { database?: string }): Promise<void> {
  const databaseId = flags.database === undefined ? undefined : requireId(flags.database, '--database');
  return runList(session, flags, {
    op: (page) => listEvidence({ ...page, databaseId }),
    itemsKey: 'evidence',
    columns: columns(session.now()),
    empty: databaseId ? `No evidence for ${databaseId} (or no such database in this organization).` : 'No evidence recorded yet.',
    after: (body) => [proofSemanticsBlock(body.proofSemantics as ProofSemantics)],
  });
}

export async function runEvidenceGet(session: Session, rawId: string): Promise<void> {
  const backupJobId = requireId(rawId, 'backup job id');
  const { data } = await (await session.api()).send(getEvidence(backupJobId));
  const e = data.evidence;
  const now = session.now();
  const iv = e.integrityVerification;
  session.out.render(data, [
    fields([
      ['backup job', e.backupJobId],
      ['artifact', e.artifactKey],
      ['manifest', e.manifestObjectKey],
      ['size', formatBytes(e.sizeBytes)],
      ['sha-256', e.checksumSha256],
      ['recorded', timestampWithAge(e.recordedAt, now)],
    ]),
    iv
      ? fields(
          [
            ['result', iv.result, iv.result === 'passed' ? 'green' : 'red'],
            ['verified', timestampWithAge(iv.verifiedAt, now)],
            ['id', iv.id],
            ['message', iv.message],
          ],
          'Integrity verification',
        )
      : fields([['result', 'not verified', 'yellow']], 'Integrity verification'),
    table(
      e.auditEvents,
      [
        { header: 'AUDIT EVENT', value: (a) => a.kind },
        { header: 'AT', value: (a) => timestampWithAge(a.at, now) },
      ],
      'No audit events.',
    ),
    proofSemanticsBlock(data.proofSemantics),
  ]);
}
