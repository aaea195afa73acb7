import { listEvidence } from '../../api/operations/evidence.js';
import type { EvidenceItem, ProofSemantics } from '../../api/schemas/evidence.js';
import { formatBytes, relativeAge } from '../../output/format.js';
import { note, type Column } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';
import { pageOptions, runList, type PageFlags, type PageOptions } from '../shared/paging.js';
import { proofSemanticsNote } from '../../core/proof.js';

export interface EvidenceListOptions extends PageOptions {
  databaseId?: string;
}

const integrity = (e: EvidenceItem): string => (e.integrityVerification ? e.integrityVerification.result : 'not verified');

const columns = (now: Date): Column<EvidenceItem>[] => [
  { header: 'BACKUP JOB', value: (e) => e.backupJobId },
  { header: 'SIZE', value: (e) => formatBytes(e.sizeBytes).split(' (')[0] ?? '', drop: 3 },
  // Whole, so a piped `svc evidence list | grep <sha256>` finds it. A digest is never cut: on a
  // terminal too narrow for it, it goes first (`svc evidence get` shows it).
  { header: 'SHA-256', value: (e) => e.checksumSha256, drop: 1 },
  { header: 'RECORDED', value: (e) => relativeAge(e.recordedAt, now), drop: 4 },
  { header: 'INTEGRITY CHECK', short: 'INTEGRITY', value: integrity },
  { header: 'AUDIT EVENTS', short: 'EVENTS', value: (e) => String(e.auditEvents.length), drop: 2 },
];

export function options(_args: string[], flags: PageFlags & { database?: string }): EvidenceListOptions {
  return { ...pageOptions(flags), databaseId: flags.database === undefined ? undefined : requireId(flags.database, '--database') };
}

export function run(opts: EvidenceListOptions, session: Session): Promise<void> {
  const { databaseId } = opts;
  return runList(session, opts, {
    op: (page) => listEvidence({ ...page, databaseId }),
    itemsKey: 'evidence',
    columns: columns(session.now()),
    empty: databaseId ? `No evidence for ${databaseId} (or no such database in this organization).` : 'No evidence recorded yet.',
    after: (body) => [
      note(
        databaseId
          ? `Every row is evidence of ${databaseId}'s backups.`
          : 'These rows mix the backups of every database (an evidence item names no database): add --database <databaseId> for one database.',
      ),
      proofSemanticsNote(body.proofSemantics as ProofSemantics),
    ],
  });
}
