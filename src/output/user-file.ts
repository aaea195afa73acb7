import { randomBytes } from 'node:crypto';
import { chmod, lstat, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../errors.js';

/**
 * A file svc writes for the user (cli-contract 7.15): through a temporary file in the same directory,
 * renamed into place, never through an existing symbolic link, mode 0644, every byte scrubbed. A
 * failure to write is exit 2 naming the path and the cause.
 */
export async function writeUserFile(path: string, text: string, scrub: (text: string) => string): Promise<void> {
  const existing = await lstat(path).catch(() => undefined);
  if (existing?.isSymbolicLink()) throw new CliError('usage', `${path} is a symbolic link; svc does not write through one.`, { hint: 'Remove the link, or name another file.' });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, scrub(text), { mode: 0o644, flag: 'wx' });
    await chmod(tmp, 0o644);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new CliError('usage', `Could not write ${path} (${code}).`, { hint: code === 'ENOSPC' ? 'Free space there, or name another place.' : 'Check the directory exists and is writable.' });
  }
}
