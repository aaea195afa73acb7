import type { ProofSemantics } from '../api/schemas/evidence.js';
import { yesNo } from '../output/format.js';
import { note, type Block, type Field } from '../output/writer.js';

/** A completed backup is never shown as proof of recoverability: these lines travel with every state. */
export const COMPLETED_IS_NOT_PROOF =
  'A completed backup is not proof of recoverability: only a verified restore proves it (svc evidence get, svc recovery summary).';

/** The service's glossary of its proof terms: for the reader, on stderr (cli-contract 4). */
export function proofSemanticsNote(semantics: ProofSemantics): Block {
  return note(
    [
      'What the proof terms mean (from the service):',
      `  completed backup:       ${semantics.completedBackup}`,
      `  verified restore:       ${semantics.verifiedRestore}`,
      `  proven recoverability:  ${semantics.provenRecoverability}`,
    ].join('\n'),
    'dim',
  );
}

export function restoreProofFields(proof: { completedBackup: boolean; verifiedRestore: boolean; provenRecoverability: boolean }): Field[] {
  return [
    ['proof: completed backup', yesNo(proof.completedBackup)],
    ['proof: verified restore', yesNo(proof.verifiedRestore), proof.verifiedRestore ? 'green' : 'yellow'],
    ['proof: proven recoverability', yesNo(proof.provenRecoverability), proof.provenRecoverability ? 'green' : 'yellow'],
  ];
}

/** The caveat beside a completed backup, on stderr: still seen on a terminal, never in the data. */
export const notProofNote = (): Block => note(COMPLETED_IS_NOT_PROOF, 'dim');
