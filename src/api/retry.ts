import { ApiError, InterruptedError } from '../errors.js';

/**
 * The one retry policy (cli-contract 6), shared by the API client and every artifact download
 * part: what is retryable, how Retry-After is read, exponential backoff with full jitter, and the
 * attempt limit.
 *
 * Written here rather than with undici's RetryAgent: RetryHandler hides the individual attempts
 * (so --verbose could not log each exchange), adds no jitter, drops the error body we need for the
 * request id once retries run out, and cannot take an injected sleep for deterministic tests.
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;
const RETRY_AFTER_JITTER_MS = 1_000;
/** Longer Retry-After values are not waited out: the command fails and says when to try again. */
export const MAX_RETRY_AFTER_MS = 120_000;

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  signal?: AbortSignal;
  /** Told before each wait, with the line to show (cli-contract 4: every retry is said on stderr). */
  onRetry?: (message: string) => void;
}

/** One attempt's outcome: a value, or an error with whether another attempt may help. */
export type Attempt<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      /** Thrown when no retry is left or allowed. */
      error: Error;
      retryable: boolean;
      retryAfterMs?: number;
      /** The attempt moved forward (bytes arrived) before failing: the retry budget starts again. */
      progressed?: boolean;
    };

/** Parses Retry-After: delta-seconds (what api-v1.md promises) or, tolerantly, an HTTP-date. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Whether a status is worth another attempt, and how long the server asked us to wait. */
export function statusVerdict(status: number, retryAfter: string | undefined): { retryable: boolean; retryAfterMs?: number } {
  const retryAfterMs = parseRetryAfterMs(retryAfter, Date.now());
  const retryable = RETRYABLE_STATUSES.has(status) && (retryAfterMs === undefined || retryAfterMs <= MAX_RETRY_AFTER_MS);
  return { retryable, retryAfterMs };
}

/**
 * Delay before retry number `retry` (0-based). With a Retry-After (429, 503) wait at least that
 * long plus jitter, so many workers sharing a key do not return in lockstep; otherwise exponential
 * backoff with full jitter.
 */
export function retryDelayMs(retry: number, retryAfterMs: number | undefined, random: () => number): number {
  if (retryAfterMs !== undefined) return retryAfterMs + Math.floor(random() * RETRY_AFTER_JITTER_MS);
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** "10s", "0.4s": a wait as a person reads it. */
function waitText(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)}s` : `${(ms / 1000).toFixed(1)}s`;
}

/** "Rate limited; retrying in 10s (1/4)": what a retry is said as, whatever was retried. */
export function retryMessage(error: Error, delayMs: number, retry: number, maxRetries: number): string {
  const why =
    error instanceof ApiError && error.status === 429
      ? 'Rate limited'
      : error instanceof ApiError
        ? `The service answered HTTP ${error.status}`
        : error.message.replace(/\.$/, '').split('\n')[0];
  return `${why}; retrying in ${waitText(delayMs)} (${retry}/${maxRetries})`;
}

/** Runs `attempt` until it succeeds, fails for good, or the retries (consecutive failures without progress) run out. */
export async function withRetries<T>(policy: RetryPolicy, attempt: (n: number) => Promise<Attempt<T>>): Promise<T> {
  let failures = 0;
  for (let n = 0; ; n++) {
    const outcome = await attempt(n);
    if (outcome.ok) return outcome.value;
    failures = outcome.progressed ? 0 : failures + 1;
    if (!outcome.retryable || failures > policy.maxRetries) throw outcome.error;
    const delay = retryDelayMs(Math.max(0, failures - 1), outcome.retryAfterMs, policy.random);
    policy.onRetry?.(retryMessage(outcome.error, delay, Math.max(1, failures), policy.maxRetries));
    await policy.sleep(delay, policy.signal);
    if (policy.signal?.aborted) throw new InterruptedError();
  }
}
