import type { ProofSemantics } from '../../api/schemas/evidence.js';
import { fields, text, type Block, type Field } from '../../output/writer.js';
import { yesNo } from '../../output/format.js';

/** A completed backup is never shown as proof of recoverability: these lines travel with every state. */
export const COMPLETED_IS_NOT_PROOF =
  'A completed backup is not proof of recoverability: only a verified restore proves it (svc evidence get, svc recovery summary).';

export function proofSemanticsBlock(semantics: ProofSemantics): Block {
  return fields(
    [
      ['completed backup', semantics.completedBackup],
      ['verified restore', semantics.verifiedRestore],
      ['proven recoverability', semantics.provenRecoverability],
    ],
    'What the proof terms mean (from the service)',
  );
}

export function restoreProofFields(proof: { completedBackup: boolean; verifiedRestore: boolean; provenRecoverability: boolean }): Field[] {
  return [
    ['proof: completed backup', yesNo(proof.completedBackup)],
    ['proof: verified restore', yesNo(proof.verifiedRestore), proof.verifiedRestore ? 'green' : 'yellow'],
    ['proof: proven recoverability', yesNo(proof.provenRecoverability), proof.provenRecoverability ? 'green' : 'yellow'],
  ];
}

export const notProofNote = (): Block => text(COMPLETED_IS_NOT_PROOF, 'dim');
