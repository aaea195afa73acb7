import type { Command } from 'commander';
import { getRestore } from '../api/operations.js';
import type { RestoreJob } from '../api/schemas/restores.js';
import { orDash, timestampWithAge } from '../output/format.js';
import { fields, type Block } from '../output/writer.js';
import type { Session } from '../session.js';
import { requireId } from './args.js';
import { examples, type CommandHost } from './host.js';
import { restoreProofFields } from './proof.js';

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

export async function runRestoreGet(session: Session, restoreJobId: string): Promise<void> {
  const { data } = await (await session.api()).send(getRestore(restoreJobId));
  session.out.render(data, restoreJobBlocks(data.restoreJob, session.now()));
}

export function registerRestore(program: Command, host: CommandHost): Command {
  const restore = program.command('restore').description('Restore jobs, executed locally by this client');
  restore
    .command('get')
    .description('Show a restore job with its proof flags (getRestore)')
    .argument('<restoreJobId>', 'restore job id')
    .addHelpText('after', examples('svc restore get rj_123', 'svc restore get rj_123 --json | jq .restoreJob.proof'))
    .action((id: string, _flags, cmd: Command) => host.run(cmd, (s) => runRestoreGet(s, requireId(id, 'restore job id'))));
  return restore;
}
