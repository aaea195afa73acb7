import { createHash, type Hash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { loadUndici, networkErrorCode, type UndiciTransport } from '../api/undici.js';
import { IntegrityError, InterruptedError } from '../errors.js';
import { isRetryableStatus, parseRetryAfterMs, retryDelayMs } from '../api/retry-policy.js';

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
  onProgress?: (received: number, total: number) => void;
  /** Told when a transfer resumes or restarts: "resumed at 1.2 MiB". */
  onNotice?: (message: string) => void;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  sha256: string;
}

/**
 * Bytes the file stream may hold before the download waits for the disk. Large, so writes go out
 * as few big writev calls; bounded, so memory stays flat whatever the artifact's size.
 */
const WRITE_BUFFER = 4 * 1024 * 1024;
const EXPIRED_HINT = 'Run the restore again to get fresh download coordinates (presigned URLs are short-lived).';

class Sink {
  #stream: WriteStream;
  /** A write error of the file (disk full, EIO): kept here, so it is never an unhandled 'error' event. */
  #error: Error | undefined;
  hash: Hash = createHash('sha256');
  received = 0;

  constructor(readonly path: string) {
    this.#stream = this.#open();
  }

  #open(): WriteStream {
    const stream = createWriteStream(this.path, { flags: 'w', mode: 0o600, highWaterMark: WRITE_BUFFER });
    stream.on('error', (err) => {
      this.#error ??= err;
    });
    return stream;
  }

  /** Throws once the file can no longer be written: the download cannot succeed, retries or not. */
  #check(): void {
    const err = this.#error ?? this.#stream.errored;
    if (!err) return;
    throw new IntegrityError(
      `Could not write the artifact to the work directory: ${networkErrorCode(err, 'write failed')}. Nothing was restored.`,
      'Free some space (or pass --work-dir on another disk), then run the restore again.',
    );
  }

  async write(chunk: Buffer): Promise<void> {
    this.#check();
    this.hash.update(chunk);
    this.received += chunk.length;
    if (!this.#stream.write(chunk)) await once(this.#stream, 'drain').catch(() => {});
    this.#check();
  }

  /** The server ignored our Range request: throw away what we have and count from zero. */
  async restart(): Promise<void> {
    await this.close();
    this.#stream = this.#open();
    this.hash = createHash('sha256');
    this.received = 0;
  }

  async close(): Promise<void> {
    if (!this.#stream.closed) {
      this.#stream.end();
      await once(this.#stream, 'close').catch(() => {});
    }
    this.#check();
  }
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
class Transient extends Error {}

/**
 * Streams the artifact to a 0600 file while counting bytes and computing SHA-256 in the same pass;
 * resumes a cut transfer with a Range request (206 + matching Content-Range required, otherwise it
 * starts over); memory stays bounded whatever the size. Size and digest are checked at the end.
 */
export async function downloadArtifact(opts: DownloadOptions): Promise<DownloadResult> {
  // Its own pool, apart from the API client's: nothing of the API's (its token above all) can reach it.
  const { Agent, request } = await loadUndici();
  const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 10_000 });
  const sink = new Sink(join(opts.dir, 'artifact.dump'));
  const total = opts.expectedSize;
  let failures = 0;
  try {
    for (;;) {
      const before = sink.received;
      try {
        await transfer(opts, sink, dispatcher, request);
        break;
      } catch (err) {
        if (!(err instanceof Transient)) throw err;
        if (opts.signal.aborted) throw new InterruptedError();
        // Progress earns the retry budget back: a flaky link that keeps moving is not a dead one.
        failures = sink.received > before ? 0 : failures + 1;
        if (failures > opts.maxRetries) {
          throw new IntegrityError(`The artifact download failed for good: ${err.message}.`, 'Check the network, then run the restore again.');
        }
        await opts.sleep(retryDelayMs(failures, undefined, opts.random), opts.signal);
        if (opts.signal.aborted) throw new InterruptedError();
        if (sink.received > 0) opts.onNotice?.(`Download interrupted (${err.message}); resuming at byte ${sink.received} of ${total}.`);
      }
    }
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
  request: UndiciTransport['request'],
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
      EXPIRED_HINT,
    );
  }
  if (status !== 200 && status !== 206) {
    await readSmall(res.body);
    if (isRetryableStatus(status)) {
      const wait = parseRetryAfterMs(header(res.headers, 'retry-after'), Date.now());
      if (wait) await opts.sleep(Math.min(wait, 30_000), opts.signal);
      throw new Transient(`HTTP ${status}`);
    }
    throw new IntegrityError(`The artifact download failed with HTTP ${status}.`, EXPIRED_HINT);
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
