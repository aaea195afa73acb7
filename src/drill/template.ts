import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { cacheDir } from '../config/paths.js';
import type { OsUser } from './os-user.js';
import type { ServerBinaries } from './server-binaries.js';

type Env = Record<string, string | undefined>;

/**
 * A fresh initdb costs about 0.55 s, its copy 20 ms: a drill's scratch cluster starts from a copy
 * of the data directory initdb made for the same server build, kept under the user's cache
 * directory. It holds no secret: initdb runs without a password, and each run sets its own random
 * one once the server is up. Bump when the initdb options or the pg_hba.conf written change.
 */
const TEMPLATE_FORMAT = 1;

/** $XDG_CACHE_HOME/svc/scratch-templates, else ~/.cache/svc/scratch-templates. */
function cacheRoot(env: Env): string {
  return join(cacheDir(env), 'scratch-templates');
}

/** Where the template of this server build (and of the user it runs as) lives. */
export function templatePath(binaries: ServerBinaries, user: OsUser | undefined, env: Env): string {
  const postgres = statSync(join(binaries.dir, 'postgres'), { throwIfNoEntry: false });
  const key = createHash('sha256')
    .update(JSON.stringify([TEMPLATE_FORMAT, binaries.dir, binaries.version, postgres?.size, postgres?.mtimeMs, user?.uid ?? process.getuid?.()]))
    .digest('hex')
    .slice(0, 16);
  return join(cacheRoot(env), `${binaries.version}-${key}`);
}

/** Copies the template's data directory to `dataDir` (owners and modes kept); false where there is none. */
export async function copyTemplate(template: string, dataDir: string): Promise<boolean> {
  if (!existsSync(join(template, 'ready'))) return false;
  const r = await execa('cp', ['-a', join(template, 'data'), dataDir], { reject: false, stdin: 'ignore' });
  if (r.exitCode === 0) return true;
  await rm(dataDir, { recursive: true, force: true });
  return false;
}

/**
 * Keeps a copy of a data directory initdb has just made (before its server ever started) as the
 * template of later runs. Best effort: a cache that cannot be written changes nothing but speed.
 */
export async function saveTemplate(dataDir: string, template: string): Promise<void> {
  const staging = `${template}.${process.pid}.tmp`;
  try {
    await mkdir(staging, { recursive: true, mode: 0o700 });
    const r = await execa('cp', ['-a', dataDir, join(staging, 'data')], { reject: false, stdin: 'ignore' });
    if (r.exitCode !== 0) throw new Error('copy failed');
    await writeFile(join(staging, 'ready'), '');
    await rename(staging, template);
  } catch {
    // Another run made it first, or the cache is not writable: the next run does an initdb too.
  } finally {
    await rm(staging, { recursive: true, force: true }).catch(() => {});
  }
}

/** Removes a template that does not start, so the next run makes it again. */
export async function discardTemplate(template: string): Promise<void> {
  // The `ready` mark first: a run copying it meanwhile sees no template rather than half of one.
  await rm(join(template, 'ready'), { force: true }).catch(() => {});
  await rm(template, { recursive: true, force: true }).catch(() => {});
}
