import { join } from 'node:path';
import type { RetryPolicy } from '../../api/retry.js';
import { loadTransport } from '../../api/undici.js';
import { IntegrityError, InterruptedError, UsageError } from '../../errors.js';
import { assertFetchable, type Fetcher } from './artifact-http.js';
import { downloadOneStream } from './one-stream.js';
import { DEFAULT_CONNECTIONS, MAX_CONNECTIONS } from '../plan.js';
import { connectionsFor, downloadInParts, planParts } from './ranged.js';
import { ArtifactFile } from './sink.js';

export interface DownloadOptions {
  /** The presigned URL: a secret. It is never put in a message, log line or file. */
  url: string;
  expectedSize: number;
  expectedSha256: string;
  /** A private (0700) directory the artifact is written into. */
  dir: string;
  signal: AbortSignal;
  maxRetries: number;
  /** Idle timeout for headers and between body chunks. */
  timeoutMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** Proxy settings (HTTPS_PROXY, NO_PROXY, ...) come from here. */
  env: Record<string, string | undefined>;
  /** Parallel Range requests for an artifact of 64 MiB or more (--connections): 1..16, default 8. */
  connections?: number;
  /** Bytes received so far, all parts together. */
  onProgress?: (received: number, total: number) => void;
  /** Told when a transfer resumes or restarts: "resuming at byte 1000 of 65536". */
  onNotice?: (message: string) => void;
  /** Told before each retry's wait (cli-contract 4). */
  onRetry?: (message: string) => void;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  sha256: string;
  /** Connections the bytes came over: 1 for one stream (a small artifact, or a server that ignores Range). */
  connections: number;
}

/** What the one stream and the parts share: the request, the file, the retry policy, the reporting. */
export interface Job extends Fetcher {
  file: ArtifactFile;
  total: number;
  signal: AbortSignal;
  policy: RetryPolicy;
  onProgress: (received: number, total: number) => void;
  onNotice: (message: string) => void;
}

export interface Received {
  bytes: number;
  sha256: string;
}

/**
 * Downloads the artifact into a 0600 file in `dir` (cli-contract 7.4-7.5): 64 MiB and more as
 * parallel Range requests (ranged.ts), else, or when the server will not do ranges, as one
 * resumable stream (one-stream.ts). SHA-256 is computed while the bytes arrive, never by a second
 * pass over the file; size and digest are checked at the end. Memory stays bounded whatever the
 * size and the number of connections. The caller owns `dir` and removes it on failure.
 */
export async function downloadArtifact(opts: DownloadOptions): Promise<DownloadResult> {
  assertFetchable(opts.url);
  const connections = opts.connections ?? DEFAULT_CONNECTIONS;
  if (!Number.isInteger(connections) || connections < 1 || connections > MAX_CONNECTIONS) {
    throw new UsageError(`--connections must be a whole number from 1 to ${MAX_CONNECTIONS}.`);
  }
  if (opts.signal.aborted) throw new InterruptedError();
  // Its own pool, apart from the API client's: nothing of the API's (its token above all) can reach it.
  const { dispatcher: makeDispatcher, request } = await loadTransport();
  const dispatcher = makeDispatcher(opts.env, { connections, keepAliveTimeout: 10_000 });
  let file: ArtifactFile | undefined;
  try {
    file = await ArtifactFile.open(join(opts.dir, 'artifact.dump'));
    const job: Job = {
      url: opts.url,
      request,
      dispatcher,
      timeoutMs: opts.timeoutMs,
      file,
      total: opts.expectedSize,
      signal: opts.signal,
      policy: { maxRetries: opts.maxRetries, sleep: opts.sleep, random: opts.random, onRetry: opts.onRetry },
      onProgress: opts.onProgress ?? (() => {}),
      onNotice: opts.onNotice ?? (() => {}),
    };
    const received = await fetchArtifact(job, connections);
    await file.close();
    verify(received, opts);
    return { path: file.path, ...received };
  } finally {
    // Every part has stopped by now: closing cannot race a write.
    await file?.close().catch(() => {});
    await dispatcher.destroy();
  }
}

async function fetchArtifact(job: Job, connections: number): Promise<Received & { connections: number }> {
  const parts = planParts(job.total, connections);
  if (!parts) return { ...(await downloadOneStream(job)), connections: 1 };
  const outcome = await downloadInParts(job, parts, connections);
  if (outcome.kind === 'done') return { bytes: outcome.bytes, sha256: outcome.sha256, connections: connectionsFor(job.total, connections) };
  job.onNotice(outcome.notice);
  return { ...(await downloadOneStream(job, outcome.response)), connections: 1 };
}

function verify(received: Received, opts: DownloadOptions): void {
  if (received.bytes !== opts.expectedSize) {
    throw new IntegrityError(`Artifact size mismatch: received ${received.bytes} bytes, the service expected ${opts.expectedSize}. Nothing was restored.`);
  }
  if (received.sha256 !== opts.expectedSha256) {
    throw new IntegrityError(
      `Artifact SHA-256 mismatch: got ${received.sha256}, the service expected ${opts.expectedSha256}. The file was deleted and nothing was restored.`,
      'Run the restore again; if it fails the same way, the stored backup may be damaged: contact support.',
    );
  }
}
