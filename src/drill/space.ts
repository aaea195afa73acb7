import { formatBytes } from '../output/format.js';
import { freeBytes } from '../restore/download/workdir.js';

/** What a fresh scratch cluster takes on disk, about (PostgreSQL 15: 40 MB), before any database is restored. */
const CLUSTER_BYTES = 64 * 1024 * 1024;

export const SPACE_HINT = 'Free space there, or point --work-dir at a file system with room for the scratch cluster and the restored databases.';

/**
 * "the work directory ... has no space left", where that is why a step of the scratch cluster failed:
 * the tool said so (ENOSPC), or less room is left than a cluster takes. A full disk is not a
 * permission problem, and the message must not send the user looking for one.
 */
export async function noSpace(workDir: string, output: string): Promise<string | undefined> {
  const free = await freeBytes(workDir).catch(() => undefined);
  if (!/No space left on device/i.test(output) && (free === undefined || free >= CLUSTER_BYTES)) return undefined;
  return `the work directory ${workDir} has no space left${free === undefined ? '' : ` (${formatBytes(free)} free)`}; a scratch cluster needs about 64 MiB, and each restored database more.`;
}
