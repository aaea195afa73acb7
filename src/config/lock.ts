// fs.promises (a getter), not node:fs/promises: the files that import this one are read by every command.
import { promises as fs } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError } from '../errors.js';
import { shellCommand } from '../output/shell-quote.js';

const WAIT_MS = 10_000;
/** A lock older than this belongs to a process that died mid-write (a write takes milliseconds). */
const STALE_MS = 30_000;

/**
 * Runs `fn` holding an exclusive lock file: read-modify-write of config.json and credentials.json
 * from concurrent svc processes (8 parallel logins) must not lose an update.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await fs.open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const held = await fs.stat(lockPath).catch(() => undefined);
      if (held && Date.now() - held.mtimeMs > STALE_MS) await fs.rm(lockPath, { force: true });
      if (Date.now() > deadline) {
        throw new CliError('bad_config', `Another svc process holds ${lockPath} and did not release it within ${WAIT_MS / 1000}s.`, {
          hint: `If no other svc is running, remove the lock: ${shellCommand(['rm', lockPath])}`,
        });
      }
      await sleep(Math.min(100, 5 * 2 ** Math.min(attempt, 5)) + Math.floor(Math.random() * 10));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lockPath, { force: true });
  }
}
