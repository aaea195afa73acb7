// Not node:fs/promises: every command reads these files, and loading it loads readline too.
// Writes reach fs.promises (a getter) only when they run.
import { promises as fs, readFile } from 'node:fs';
import { dirname } from 'node:path';
import { CliError } from '../errors.js';
import { shellCommand } from '../output/shell-quote.js';
import { withFileLock } from './lock.js';

/**
 * A JSON object file, or undefined when it does not exist. A file that is not a JSON object is
 * never silently replaced: exit 1 with its path and how to repair it.
 */
export async function readJsonFile(path: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await new Promise<string>((resolve, reject) => readFile(path, 'utf8', (err, data) => (err ? reject(err) : resolve(data))));
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
  throw new CliError('bad_config', `${path} is not a JSON object.`, {
    hint: `Fix or delete the file, then run the command again (svc never overwrites it). To start over: ${shellCommand(['mv', path, `${path}.broken`])} && ${shellCommand(['svc', 'auth', 'login'])}`,
  });
}

/** Writes atomically (a private temp file, then rename) with `mode`, into a directory that exists. */
export async function writeJsonFile(path: string, value: unknown, mode: number): Promise<void> {
  // node:crypto loads only here: every command reads these files, few write them.
  const { randomBytes } = await import('node:crypto');
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode, flag: 'wx' });
    await fs.chmod(tmp, mode);
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Read-modify-write of one JSON file under the config directory's lock: `update` gets the current
 * object ({} when missing) and returns the next one, or undefined to delete the file.
 */
export async function updateJsonFile(
  path: string,
  mode: number,
  update: (current: Record<string, unknown>) => Record<string, unknown> | undefined,
): Promise<void> {
  await fs.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await withFileLock(`${dirname(path)}/.lock`, async () => {
    const next = update((await readJsonFile(path)) ?? {});
    if (next === undefined) await fs.rm(path, { force: true });
    else await writeJsonFile(path, next, mode);
  });
}
