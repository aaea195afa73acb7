import type { Dispatcher } from 'undici';
import { ERROR_BODY_LIMIT, readBounded } from '../../api/body.js';
import { statusVerdict, type Attempt } from '../../api/retry.js';
import { networkErrorCode, type Transport } from '../../api/undici.js';
import { CliError, IntegrityError, InterruptedError } from '../../errors.js';

/**
 * One artifact request and what its answer means, shared by the single stream and the parts.
 * Nothing here ever quotes the URL: a presigned URL is a secret; messages carry codes and statuses.
 */

export type Response = Dispatcher.ResponseData;
export type Body = Response['body'];

/** How the artifact is fetched: the URL, its own connection pool, the idle timeout. */
export interface Fetcher {
  url: string;
  request: Transport['request'];
  dispatcher: Dispatcher;
  timeoutMs: number;
}

/** A failure another attempt may cure: retried (and resumed with Range) until retries run out. */
export class Transient extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * One resumable attempt as withRetries sees it: a Transient failure may be retried, and one that moved
 * the position forward earns the retry budget back (a flaky link that keeps moving is not a dead one).
 * `onFailure` keeps the message for the next attempt's "resuming" notice.
 */
export async function resumableAttempt(
  signal: AbortSignal,
  moved: () => boolean,
  what: string,
  onFailure: (message: string) => void,
  attempt: () => Promise<void>,
): Promise<Attempt<void>> {
  try {
    await attempt();
    return { ok: true, value: undefined };
  } catch (err) {
    if (!(err instanceof Transient)) throw err;
    if (signal.aborted) throw new InterruptedError();
    onFailure(err.message);
    return {
      ok: false,
      retryable: true,
      retryAfterMs: err.retryAfterMs,
      progressed: moved(),
      error: new IntegrityError(`The artifact download failed for good${what}: ${err.message}.`, undefined, 'artifact_download_failed'),
    };
  }
}

/** Only http: and https: are fetched (cli-contract 7.4): anything else is exit 10 before any I/O. */
export function assertFetchable(url: string): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new IntegrityError('The artifact download URL is not a valid URL.', undefined, 'artifact_download_failed');
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    // The scheme alone is no secret; the rest of the URL is.
    throw new IntegrityError(
      `The artifact download URL uses the ${JSON.stringify(protocol.slice(0, 16))} scheme; only http and https are fetched.`,
      undefined,
      'artifact_download_failed',
    );
  }
}

export function header(res: Response, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Content-Range: bytes <start>-<end>/<total|*>, as numbers (total -1 for *). */
export function parseContentRange(res: Response): { start: number; end: number; total: number } | undefined {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header(res, 'content-range')?.trim() ?? '');
  if (!m) return undefined;
  return { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? -1 : Number(m[3]) };
}

/** A body we will not read: dropped with its connection, so nothing more of it is received. */
export function discard(res: Response): void {
  res.body.destroy();
}

/** GET, without Authorization (the bearer token never goes to the artifact store). */
export async function get(f: Fetcher, signal: AbortSignal, range?: string): Promise<Response> {
  try {
    return await f.request(f.url, {
      method: 'GET',
      headers: range ? { range } : {},
      signal,
      dispatcher: f.dispatcher,
      headersTimeout: f.timeoutMs,
      bodyTimeout: f.timeoutMs,
    });
  } catch (err) {
    if (signal.aborted) throw new InterruptedError();
    // undici's messages can quote the URL; only the error code is kept.
    throw new Transient(networkErrorCode(err));
  }
}

/**
 * Reads at most 64 KiB of an error body (cli-contract 6), and for at most `ms` in all: an endless
 * or trickling body is cut off, never waited out.
 */
async function readErrorBody(body: Body, ms: number): Promise<string> {
  const timer = setTimeout(() => body.destroy(), ms);
  try {
    return await readBounded(body, ERROR_BODY_LIMIT, { truncate: true });
  } catch {
    return '';
  } finally {
    clearTimeout(timer);
  }
}

/** Throws what an answer other than 200 or 206 means: expired, refused for good, or worth a retry. */
export async function rejectStatus(res: Response, timeoutMs: number): Promise<never> {
  const status = res.statusCode;
  const text = await readErrorBody(res.body, timeoutMs);
  if (status === 403) {
    const expired = /Request has expired/i.test(text);
    throw new IntegrityError(
      expired ? 'The artifact download URL has expired (HTTP 403 "Request has expired").' : 'The artifact store refused the download (HTTP 403).',
      undefined,
      'artifact_expired',
    );
  }
  const verdict = statusVerdict(status, header(res, 'retry-after'));
  if (verdict.retryable) throw new Transient(`HTTP ${status}`, verdict.retryAfterMs);
  throw new IntegrityError(`The artifact download failed with HTTP ${status}.`, undefined, 'artifact_download_failed');
}

/**
 * Feeds `body` to `accept` chunk by chunk, as undici delivers them ('data' events: the async
 * iterator would join the chunks that wait into a new buffer, and cost a promise per chunk). While
 * a promise `accept` returns is pending the body is paused (backpressure: undici stops reading the
 * socket). Returns 'overrun' as soon as a chunk would go past `room` bytes; that chunk is not
 * accepted and the body is dropped. A network failure is Transient.
 */
export function pump(body: Body, signal: AbortSignal, room: number, accept: (chunk: Buffer) => Promise<void> | undefined): Promise<'ended' | 'overrun'> {
  return new Promise((resolve, reject) => {
    let left = room;
    let settled = false;
    const failure = (err: unknown) =>
      err instanceof CliError ? err : signal.aborted ? new InterruptedError() : new Transient(networkErrorCode(err, 'connection lost'));
    const settle = (outcome: 'ended' | 'overrun' | Error) => {
      if (settled) return;
      settled = true;
      body.off('data', onData).off('end', onEnd).off('close', onClose);
      // Whatever the body does after this (an error as it is dropped) is no one's concern.
      body.off('error', onError).on('error', () => {});
      if (outcome === 'ended') return resolve(outcome);
      body.destroy();
      if (outcome === 'overrun') resolve(outcome);
      else reject(outcome);
    };
    const onData = (chunk: Buffer) => {
      if (settled) return;
      if (chunk.length > left) return settle('overrun');
      left -= chunk.length;
      let wait: Promise<void> | undefined;
      try {
        wait = accept(chunk);
      } catch (err) {
        return settle(failure(err));
      }
      if (!wait) return;
      body.pause();
      wait.then(
        () => void (settled || body.resume()),
        (err: unknown) => settle(failure(err)),
      );
    };
    const onEnd = () => settle('ended');
    const onError = (err: unknown) => settle(failure(err));
    // Closed before its end without an error: cut, like a reset connection.
    const onClose = () => settle(failure(new Error('premature close')));
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
