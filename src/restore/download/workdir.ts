import { access, constants, statfs } from 'node:fs/promises';
import { CliError, UsageError } from '../../errors.js';
import { formatBytes } from '../../output/format.js';

/** Free bytes available to us in `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

export async function assertWritableDir(dir: string, flag: '--work-dir' | '--receipt' = '--work-dir'): Promise<void> {
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch {
    if (flag === '--receipt')
      throw new UsageError(`The directory of --receipt, ${dir}, does not exist or is not writable.`, 'Name a file in a writable directory.');
    throw new UsageError(
      `The work directory ${dir} does not exist or is not writable.`,
      'Pass --work-dir with a writable directory that has room for the artifact.',
    );
  }
}

/**
 * Room for the artifact plus a small margin. Before any restore job exists a shortfall is exit 2
 * (pick another --work-dir); once the service has handed out coordinates whose size does not fit,
 * it is exit 10, before a byte is downloaded (cli-contract 7.4).
 */
export async function assertFreeSpace(dir: string, needed: number, code: 'insufficient_space' | 'artifact_exceeds_disk' = 'insufficient_space'): Promise<void> {
  const free = await freeBytes(dir);
  const margin = 16 * 1024 * 1024;
  if (free < needed + margin) {
    const what = code === 'insufficient_space' ? 'the artifact needs' : "the restore job's artifact is";
    throw new CliError(code, `Not enough free space in ${dir}: ${formatBytes(free)} free, ${what} ${formatBytes(needed)}. Nothing was downloaded.`);
  }
}
