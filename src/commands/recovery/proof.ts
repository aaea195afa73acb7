import { getRecoveryWindowProof } from '../../api/operations/recovery.js';
import { orDash, yesNo } from '../../output/format.js';
import { fields } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';
import { windowBlock } from './window.js';

export interface RecoveryProofOptions {
  windowId: string;
}

export function options([id]: string[]): RecoveryProofOptions {
  return { windowId: requireId(id, 'window id') };
}

export async function run(opts: RecoveryProofOptions, session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getRecoveryWindowProof(opts.windowId));
  const { baselineArtifact, cursorChain, schemaDigest } = data.proof;
  await session.out.render(data, [
    windowBlock(data.window, session.now(), 'Recovery window'),
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
