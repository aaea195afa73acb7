import { networkErrorCode } from './undici.js';

export type Headers = Record<string, string | string[] | undefined>;

export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The clock of an exchange's duration: process.hrtime, not performance.now(), whose global loads perf_hooks (every request paid for it). */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** The --verbose line of one HTTP exchange: method, path, status, duration, request id, rate-limit headers. */
export function exchangeLine(
  method: string,
  path: string,
  outcome: { status: number; headers: Headers } | { error: unknown } | 'timeout',
  ms: number,
  attempt: number,
): string {
  const retry = attempt > 0 ? ` (retry ${attempt})` : '';
  if (outcome === 'timeout') return `http ${method} ${path} timed out after ${ms}ms${retry}`;
  if ('error' in outcome) return `http ${method} ${path} failed: ${networkErrorCode(outcome.error)} after ${ms}ms${retry}`;
  const parts = [`http ${method} ${path} ${outcome.status} ${ms}ms${retry}`];
  const requestId = header(outcome.headers, 'x-request-id');
  if (requestId) parts.push(`request-id=${requestId}`);
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']) {
    const value = header(outcome.headers, name);
    if (value !== undefined) parts.push(`${name}=${value}`);
  }
  return parts.join(' ');
}
