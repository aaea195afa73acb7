import { createHash, randomBytes } from 'node:crypto';
import { openSync, closeSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, ensureBuilt, ROOT, tempDir } from '../support/built-cli.js';

/**
 * The ranged download hashes in a worker thread started from a file (src/restore/download/prefix-hash-worker.mjs):
 * in the built bundle that file must sit where the chunk that starts it looks, or every download of
 * 64 MiB and more fails in an installed svc while the tests of the sources pass.
 */
describe("the ranged download's hashing thread (the built bundle)", () => {
  const CHUNKS = join(ROOT, 'dist', 'chunks');
  beforeAll(() => ensureBuilt(), 180_000);
  afterAll(() => cleanupBuiltCli());

  it('is a file beside the chunk that starts it, and hashes a file from its descriptor', async () => {
    const starters = readdirSync(CHUNKS).filter((f) => readFileSync(join(CHUNKS, f), 'utf8').includes('"./prefix-hash-worker.mjs"'));
    expect(starters).toHaveLength(1);
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const path = join(tempDir('prefix-hash'), 'artifact.dump');
    writeFileSync(path, data);
    const fd = openSync(path, 'r');
    const worker = new Worker(join(CHUNKS, 'prefix-hash-worker.mjs'), { workerData: { fd, total: data.length } });
    try {
      const reply = new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
      worker.postMessage({ kind: 'limit', at: data.length });
      expect(await reply).toEqual({ kind: 'digest', sha256: createHash('sha256').update(data).digest('hex') });
    } finally {
      await worker.terminate();
      closeSync(fd);
    }
  });
});
