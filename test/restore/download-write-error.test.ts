import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { IntegrityError } from '../../src/errors.js';
import { downloadArtifact } from '../../src/restore/download/download.js';
import { listenOnLoopback } from '../support/ports.js';

/**
 * A write error on the artifact file (disk full, EIO, quota) must reject the download with a
 * CliError, not surface as an unhandled 'error' event on the file stream (an uncaught exception).
 */
const ARTIFACT = Buffer.alloc(256 * 1024, 7);
const SHA256 = createHash('sha256').update(ARTIFACT).digest('hex');

let server: Server;
let dir: string;
let url: string;
let paced = true;

beforeEach(async () => {
  // Sent in slices with pauses, so the file stream's write error arrives between two chunks.
  const send = async (res: ServerResponse) => {
    res.writeHead(200, { 'content-length': ARTIFACT.length });
    if (!paced) return void res.end(ARTIFACT);
    for (let i = 0; i < ARTIFACT.length && !res.destroyed; i += 16 * 1024) {
      res.write(ARTIFACT.subarray(i, i + 16 * 1024));
      await new Promise((r) => setTimeout(r, 20));
    }
    res.end();
  };
  server = createServer((_req, res) => void send(res));
  url = `http://127.0.0.1:${await listenOnLoopback(server)}/artifact`;
  dir = mkdtempSync(join(tmpdir(), 'svc-review-'));
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

it.skipIf(!existsSync('/dev/full')).each([
  ['arrives between two chunks (was: unhandled error event, process crash)', true],
  ['arrives when the file is closed (was: raw Error, exit 1 "bug in svc")', false],
])(
  'a write error on the artifact file that %s is exit 10',
  async (_label, pace) => {
    paced = pace;
    // The artifact file resolves to /dev/full: every write fails with ENOSPC.
    symlinkSync('/dev/full', join(dir, 'artifact.dump'));
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const outcome = await downloadArtifact({
        url,
        expectedSize: ARTIFACT.length,
        env: {},
        expectedSha256: SHA256,
        dir,
        signal: new AbortController().signal,
        maxRetries: 2,
        timeoutMs: 2000,
        sleep: async () => {},
        random: () => 0.5,
      }).then(
        () => 'resolved',
        (err: unknown) => err,
      );
      // Give a stray 'error' event the chance to fire.
      await new Promise((r) => setTimeout(r, 100));
      expect(uncaught).toEqual([]);
      expect(outcome).toBeInstanceOf(IntegrityError);
      expect((outcome as IntegrityError).message).toMatch(/ENOSPC/);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  },
  10_000,
);
