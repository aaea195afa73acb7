import { getEvidence } from '../../api/operations/evidence.js';
import { formatBytes, timestampWithAge } from '../../output/format.js';
import { fields, table } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';
import { proofSemanticsNote } from '../../core/proof.js';

export interface GetEvidenceOptions {
  backupJobId: string;
}

export function options([id]: string[]): GetEvidenceOptions {
  return { backupJobId: requireId(id, 'backup job id') };
}

export async function run(opts: GetEvidenceOptions, session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getEvidence(opts.backupJobId));
  const e = data.evidence;
  const now = session.now();
  const iv = e.integrityVerification;
  await session.out.render(data, [
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
    proofSemanticsNote(data.proofSemantics),
  ]);
}
