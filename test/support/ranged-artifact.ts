import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import { CliError } from '../../src/errors.js';
import type { DownloadOptions, DownloadResult } from '../../src/restore/download/download.js';
import { startArtifactServer, type ArtifactRequest, type ArtifactServer } from './artifact-server.js';
import { writeArtifact } from './big-artifact.js';

/**
 * A 72 MiB artifact (so the parallel path runs: nine 8 MiB parts, the short tail riding with the
 * last) served by the artifact server, a fresh download dir per test, and what the ranged download
 * tests assert with. Files are written to and hashed from disk, never held in memory.
 */
export const MiB = 1024 * 1024;
export const SIZE = 72 * MiB + 4321;
export const PART = 8 * MiB;
/** The Range of each part, in order. */
export const PARTS = Array.from({ length: 9 }, (_, i) => `bytes=${i * PART}-${i === 8 ? SIZE - 1 : (i + 1) * PART - 1}`);

export interface RangedArtifact {
  root: string;
  sha: string;
  server: ArtifactServer;
  /** This test's download dir. */
  dir: string;
  /** This test's onNotice lines. */
  notices: string[];
  /** Every message, hint and notice a user could have seen so far, across the file's tests. */
  shown: string[];
  options(overrides?: Partial<DownloadOptions>): DownloadOptions;
  gets(): ArtifactRequest[];
  /** The GETs that asked for exactly this range. */
  asked(range: string): ArtifactRequest[];
  /** Waits until every response has ended: nothing is still sent to (or read by) the client. */
  allClosed(): Promise<void>;
  /** The download rejected with a CliError (recorded in `shown`). */
  failure(run: Promise<unknown>): Promise<CliError>;
  /** The download succeeded: the right bytes on disk, 0600, and the result says so. */
  expectArtifact(result: DownloadResult): Promise<void>;
}

export const startOf = (r: ArtifactRequest): number => Number(/^bytes=(\d+)-/.exec(r.headers.range ?? '')?.[1]);

export async function fileSha(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Registers the file's hooks; the fields are filled in by them. */
export function useRangedArtifact(): RangedArtifact {
  const t = { shown: [] as string[] } as RangedArtifact;
  beforeAll(async () => {
    t.root = mkdtempSync(join(tmpdir(), 'svc-ranged-'));
    t.sha = await writeArtifact(join(t.root, 'artifact.bin'), SIZE);
    t.server = await startArtifactServer(join(t.root, 'artifact.bin'), { name: 'acme-orders.pgdump' });
  }, 60_000);
  afterAll(async () => {
    await t.server?.stop();
    rmSync(t.root, { recursive: true, force: true });
  });
  beforeEach(() => {
    t.server.reset();
    t.dir = mkdtempSync(join(t.root, 'run-'));
    t.notices = [];
  });
  afterEach(() => {
    t.shown.push(...t.notices);
    rmSync(t.dir, { recursive: true, force: true });
  });

  t.options = (overrides = {}) => ({
    url: t.server.url,
    expectedSize: SIZE,
    expectedSha256: t.sha,
    dir: t.dir,
    env: {},
    signal: new AbortController().signal,
    maxRetries: 2,
    timeoutMs: 10_000,
    sleep: async () => {},
    random: () => 0.5,
    onNotice: (m) => t.notices.push(m),
    ...overrides,
  });
  t.gets = () => t.server.requests.filter((r) => r.method === 'GET');
  t.asked = (range) => t.gets().filter((r) => r.headers.range === range);
  t.allClosed = () => vi.waitFor(() => expect(t.gets().filter((r) => r.status === undefined)).toEqual([]), { timeout: 10_000 });
  t.failure = async (run) => {
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CliError);
    const e = err as CliError;
    t.shown.push(e.message, e.details.hint ?? '');
    return e;
  };
  t.expectArtifact = async (result) => {
    expect(result).toEqual({ path: join(t.dir, 'artifact.dump'), bytes: SIZE, sha256: t.sha, connections: expect.any(Number) });
    expect(statSync(result.path).size).toBe(SIZE);
    expect(statSync(result.path).mode & 0o777).toBe(0o600);
    expect(await fileSha(result.path)).toBe(t.sha);
  };
  return t;
}

/** The last test of a file: nothing the user saw held the URL's signature. */
export function expectNoSignature(t: RangedArtifact, atLeast: number): void {
  expect(t.shown.length).toBeGreaterThanOrEqual(atLeast);
  for (const text of t.shown) {
    expect(text).not.toContain(t.server.signature);
    expect(text).not.toContain('X-Amz');
  }
}
