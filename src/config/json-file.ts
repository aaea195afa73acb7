import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CliError } from '../errors.js';

export async function readJsonFile(path: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new CliError('bad_config', `${path} is not a JSON object.`);
}

/** Writes atomically (temp file + rename) with the given mode, creating the directory 0700. */
export async function writeJsonFile(path: string, value: unknown, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  // A stale temp file could have looser permissions: remove it, then create exclusively with `mode`.
  await rm(tmp, { force: true });
  await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode, flag: 'wx' });
  await chmod(tmp, mode);
  await rename(tmp, path);
}

export async function removeFile(path: string): Promise<void> {
  await rm(path, { force: true });
}
