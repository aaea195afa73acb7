import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../src/errors.js';
import { downloadArtifact, type DownloadOptions } from '../../src/restore/download/download.js';
import { listenOnLoopback } from '../support/ports.js';

/**
 * The download's own idle timeout (node:http, no undici): a server that goes silent, before the
 * headers or in the middle of the body, is a transient failure that is resumed with Range.
 * The cut, ignored-Range, expired and corrupt cases run end to end in test/restore-pg/artifact-faults.
 */
const ARTIFACT = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 31) % 251));
const SHA256 = createHash('sha256').update(ARTIFACT).digest('hex');

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let handlers: Handler[];
let requests: Array<{ range: string | undefined }>;
let dir: string;
let url: string;

beforeEach(async () => {
  handlers = [];
  requests = [];
  server = createServer((req, res) => {
    requests.push({ range: req.headers.range });
    (handlers.shift() ?? ((_q, r) => r.writeHead(599).end()))(req, res);
  });
  url = `http://127.0.0.1:${await listenOnLoopback(server)}/artifact`;
  dir = mkdtempSync(join(tmpdir(), 'svc-download-'));
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function options(overrides: Partial<DownloadOptions> = {}): DownloadOptions {
  return {
    url,
    expectedSize: ARTIFACT.length,
    expectedSha256: SHA256,
    dir,
    env: {},
    signal: new AbortController().signal,
    maxRetries: 2,
    timeoutMs: 200,
    sleep: async () => {},
    random: () => 0.5,
    ...overrides,
  };
}

const silentAfter =
  (bytes: number): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-length': ARTIFACT.length });
    res.write(ARTIFACT.subarray(0, bytes));
  };

const rest: Handler = (req, res) => {
  const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
  res.writeHead(206, { 'content-length': ARTIFACT.length - start, 'content-range': `bytes ${start}-${ARTIFACT.length - 1}/${ARTIFACT.length}` });
  res.end(ARTIFACT.subarray(start));
};

describe('downloadArtifact idle timeout', () => {
  it('a body that goes silent half way is resumed with a Range request', async () => {
    handlers.push(silentAfter(1000), rest);
    const notices: string[] = [];
    const result = await downloadArtifact(options({ onNotice: (m) => notices.push(m) }));
    expect(result).toMatchObject({ bytes: ARTIFACT.length, sha256: SHA256 });
    expect(readFileSync(result.path).equals(ARTIFACT)).toBe(true);
    expect(requests.map((r) => r.range)).toEqual([undefined, 'bytes=1000-']);
    expect(notices).toEqual([`Download interrupted (ETIMEDOUT); resuming at byte 1000 of ${ARTIFACT.length}.`]);
  });

  it('headers that never come fail for good once the retries are used up', async () => {
    handlers.push(
      () => {},
      () => {},
      () => {},
    );
    const err = await downloadArtifact(options()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntegrityError);
    expect((err as Error).message).toBe('The artifact download failed for good: ETIMEDOUT.');
    expect(requests).toHaveLength(3);
  });
});
