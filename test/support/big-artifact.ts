import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const BLOCK = 1024 * 1024;

/**
 * Writes `size` random bytes to `path`, one 1 MiB block at a time (never the whole artifact in
 * memory), and returns their SHA-256.
 */
export async function writeArtifact(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  for (let left = size; left > 0; left -= BLOCK) {
    const block = randomBytes(Math.min(BLOCK, left));
    hash.update(block);
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  return hash.digest('hex');
}
