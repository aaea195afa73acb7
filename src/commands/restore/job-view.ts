import type { RestoreJob } from '../../api/schemas/restores.js';
import { orDash, timestampWithAge } from '../../output/format.js';
import { fields, type Block } from '../../output/writer.js';
import { restoreProofFields } from '../../core/proof.js';

/** A restore job with its proof flags beside the state; shared by get, --watch, create and run. */
export function restoreJobBlocks(job: RestoreJob, now: Date): Block[] {
  const failed = job.state.startsWith('failed') || job.state === 'cancelled' || job.state === 'timed_out';
  return [
    fields([
      ['id', job.id],
      ['database', job.databaseId],
      ['mode', job.mode],
      ['state', job.state, job.state === 'completed' ? 'green' : failed ? 'red' : undefined],
      ...restoreProofFields(job.proof),
      ['manifest hash', orDash(job.manifestHash)],
      ['created', timestampWithAge(job.createdAt, now)],
      ['heartbeat', job.heartbeatAt ? timestampWithAge(job.heartbeatAt, now) : '-'],
      ['finalized', job.finalizedAt ? timestampWithAge(job.finalizedAt, now) : '-'],
      ['error', job.errorKind ? `${job.errorKind}: ${orDash(job.errorMessage)}` : undefined],
    ]),
  ];
}
