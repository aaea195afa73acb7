import { access, constants, statfs } from 'node:fs/promises';
import { CliError, UsageError } from '../errors.js';
import { formatBytes } from '../output/format.js';

/** Free bytes available to us in `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

export async function assertWritableDir(dir: string): Promise<void> {
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new UsageError(`The work directory ${dir} does not exist or is not writable.`, 'Pass --work-dir with a writable directory that has room for the artifact.');
  }
}

/** Room for the artifact plus a small margin; checked again once expectedSizeBytes is known. */
export async function assertFreeSpace(dir: string, needed: number): Promise<void> {
  const free = await freeBytes(dir);
  const margin = 16 * 1024 * 1024;
  if (free < needed + margin) {
    throw new CliError('insufficient_space', `Not enough free space in ${dir}: ${formatBytes(free)} free, the artifact needs ${formatBytes(needed)}.`);
  }
}
