import { getBackup } from '../../api/operations/backups.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';
import { backupDetailBlocks } from './detail.js';

export interface GetBackupOptions {
  backupJobId: string;
}

export function options([id]: string[]): GetBackupOptions {
  return { backupJobId: requireId(id, 'backup job id') };
}

export async function run(opts: GetBackupOptions, session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getBackup(opts.backupJobId));
  await session.out.render(data, backupDetailBlocks(data, session.now()));
}
