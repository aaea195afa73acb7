/**
 * When to retry and how long to wait (cli-contract 6). Shared by the API client and the artifact download.
 *
 * Written here rather than with undici's RetryAgent: RetryHandler hides the individual attempts
 * (so --verbose could not log each exchange), adds no jitter, drops the error body we need for the
 * request id once retries run out, and cannot take an injected sleep for deterministic tests.
 */
export const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;
const RETRY_AFTER_JITTER_MS = 1_000;
/** Longer Retry-After values are not waited out: the command fails and says when to try again. */
export const MAX_RETRY_AFTER_MS = 120_000;

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** Parses Retry-After: delta-seconds (what api-v1.md promises) or, tolerantly, an HTTP-date. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * Delay before retry number `attempt` (0-based). With a Retry-After (429, 503) wait at least that
 * long plus jitter, so many workers sharing a key do not return in lockstep; otherwise exponential
 * backoff with full jitter.
 */
export function retryDelayMs(attempt: number, retryAfterMs: number | undefined, random: () => number): number {
  if (retryAfterMs !== undefined) return retryAfterMs + Math.floor(random() * RETRY_AFTER_JITTER_MS);
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
