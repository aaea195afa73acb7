import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { withRetries, statusVerdict } from '../api/retry.js';
import { loadTransport, networkErrorCode, type Transport } from '../api/undici.js';
import { IntegrityError, InterruptedError } from '../errors.js';
import { Sink } from './sink.js';

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
  onProgress?: (received: number, total: number) => void;
  /** Told when a transfer resumes or restarts: "resumed at 1.2 MiB". */
  onNotice?: (message: string) => void;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  sha256: string;
}

/** Content-Range: bytes <start>-<end>/<total> must continue exactly where we stopped. */
function continuesAt(contentRange: string | string[] | undefined, start: number, total: number): boolean {
  const value = Array.isArray(contentRange) ? contentRange[0] : contentRange;
  const m = value && /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(value.trim());
  if (!m) return false;
  return Number(m[1]) === start && (m[3] === '*' || Number(m[3]) === total) && Number(m[2]) < total;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function readSmall(body: Dispatcher.ResponseData['body']): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    if (text.length < 8192) text += (chunk as Buffer).toString('utf8');
  }
  return text;
}

/** A transient failure: retried (and resumed with Range) until retries run out. */
class Transient extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * Streams the artifact to a 0600 file while counting bytes and computing SHA-256 in the same pass;
 * resumes a cut transfer with a Range request (206 + matching Content-Range required, otherwise it
 * starts over); memory stays bounded whatever the size. Size and digest are checked at the end.
 */
export async function downloadArtifact(opts: DownloadOptions): Promise<DownloadResult> {
  // Its own pool, apart from the API client's: nothing of the API's (its token above all) can reach it.
  const { dispatcher: makeDispatcher, request } = await loadTransport();
  const dispatcher = makeDispatcher(opts.env, { connections: 1, keepAliveTimeout: 10_000 });
  const sink = new Sink(join(opts.dir, 'artifact.dump'));
  const total = opts.expectedSize;
  let lastFailure = '';
  try {
    await withRetries({ maxRetries: opts.maxRetries, sleep: opts.sleep, random: opts.random, signal: opts.signal }, async (n) => {
      const before = sink.received;
      if (n > 0 && before > 0) opts.onNotice?.(`Download interrupted (${lastFailure}); resuming at byte ${before} of ${total}.`);
      try {
        await transfer(opts, sink, dispatcher, request);
        return { ok: true, value: undefined };
      } catch (err) {
        if (!(err instanceof Transient)) throw err;
        if (opts.signal.aborted) throw new InterruptedError();
        lastFailure = err.message;
        return {
          ok: false,
          retryable: true,
          retryAfterMs: err.retryAfterMs,
          // Progress earns the retry budget back: a flaky link that keeps moving is not a dead one.
          progressed: sink.received > before,
          error: new IntegrityError(`The artifact download failed for good: ${err.message}.`, undefined, 'artifact_download_failed'),
        };
      }
    });
    await sink.close();
    const sha256 = sink.hash.digest('hex');
    if (sink.received !== total) {
      throw new IntegrityError(`Artifact size mismatch: received ${sink.received} bytes, the service expected ${total}. Nothing was restored.`);
    }
    if (sha256 !== opts.expectedSha256) {
      throw new IntegrityError(
        `Artifact SHA-256 mismatch: got ${sha256}, the service expected ${opts.expectedSha256}. The file was deleted and nothing was restored.`,
        'Run the restore again; if it fails the same way, the stored backup may be damaged: contact support.',
      );
    }
    return { path: sink.path, bytes: sink.received, sha256 };
  } catch (err) {
    await sink.close().catch(() => {});
    throw err;
  } finally {
    await dispatcher.destroy();
  }
}

async function transfer(
  opts: DownloadOptions,
  sink: Sink,
  dispatcher: Dispatcher,
  request: Transport['request'],
): Promise<void> {
  const total = opts.expectedSize;
  const resumeAt = sink.received;
  let res: Dispatcher.ResponseData;
  try {
    res = await request(opts.url, {
      method: 'GET',
      // Deliberately no Authorization: the bearer token never goes to the artifact store.
      headers: resumeAt > 0 ? { range: `bytes=${resumeAt}-` } : {},
      signal: opts.signal,
      dispatcher,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  } catch (err) {
    if (opts.signal.aborted) throw new InterruptedError();
    // undici's messages can quote the URL; only the error code is kept.
    throw new Transient(networkErrorCode(err));
  }

  const status = res.statusCode;
  if (status === 403) {
    const body = await readSmall(res.body);
    const expired = /expired/i.test(body);
    throw new IntegrityError(
      expired ? 'The artifact download URL has expired (HTTP 403 "Request has expired").' : 'The artifact store refused the download (HTTP 403).',
      undefined,
      'artifact_expired',
    );
  }
  if (status !== 200 && status !== 206) {
    await readSmall(res.body);
    const verdict = statusVerdict(status, header(res.headers, 'retry-after'));
    if (verdict.retryable) throw new Transient(`HTTP ${status}`, verdict.retryAfterMs);
    throw new IntegrityError(`The artifact download failed with HTTP ${status}.`, undefined, 'artifact_expired');
  }
  if (resumeAt > 0) {
    if (status === 200) {
      opts.onNotice?.('The artifact server ignored the Range request; downloading from the start again.');
      await sink.restart();
    } else if (!continuesAt(res.headers['content-range'], resumeAt, total)) {
      await readSmall(res.body);
      opts.onNotice?.('The artifact server answered the Range request with a different range; downloading from the start again.');
      await sink.restart();
      throw new Transient('mismatched Content-Range');
    }
  } else if (status === 206) {
    await readSmall(res.body);
    throw new Transient('unexpected partial content');
  }
  const announced = Number(header(res.headers, 'content-length'));
  if (status === 200 && Number.isFinite(announced) && announced !== total) {
    await readSmall(res.body).catch(() => {});
    throw new IntegrityError(
      `Artifact size mismatch: the artifact store announces ${announced} bytes, the service expected ${total}. Nothing was downloaded or restored.`,
    );
  }

  try {
    for await (const chunk of res.body) {
      if (sink.received + (chunk as Buffer).length > total) {
        throw new IntegrityError(`Artifact size mismatch: more than the expected ${total} bytes arrived. Nothing was restored.`);
      }
      await sink.write(chunk as Buffer);
      opts.onProgress?.(sink.received, total);
    }
  } catch (err) {
    if (err instanceof IntegrityError) throw err;
    if (opts.signal.aborted) throw new InterruptedError();
    throw new Transient(networkErrorCode(err, 'connection lost'));
  }
  // A body that ends cleanly but short is resumed like a cut one.
  if (sink.received < total) throw new Transient('transfer ended early');
}
