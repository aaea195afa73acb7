import { InterruptedError } from '../errors.js';
import { header, type Headers } from './exchange-log.js';

/** Added to the wait for a window's reset, so many runs on one key do not return in lockstep. */
const RESET_JITTER_MS = 500;
/** Reset times of one window differ by the rounding of whole seconds (and the trip back); a later one is a new window. */
const SAME_WINDOW_MS = 1_000;

export interface PacingDeps {
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** Milliseconds since the epoch; the context's clock, so tests can fix it. */
  now: () => number;
  signal?: AbortSignal;
  /** --verbose: said when svc waits, and why. */
  log?: (line: string) => void;
}

/** A header of whole non-negative numbers (RateLimit-Remaining, RateLimit-Reset), else undefined. */
function count(headers: Headers, name: string): number | undefined {
  const value = header(headers, name)?.trim();
  return value !== undefined && /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

/**
 * The request budget of one API key, shared by everything one client sends (cli-contract 6, v4):
 * every response's RateLimit-Remaining and RateLimit-Reset are read, and once the window's budget
 * is spent the next request waits until the window resets (plus jitter) instead of meeting a 429.
 * Requests already sent but not answered count against the budget, so workers running at once
 * (--parallel, a selection's reads) do not overspend it together. A service that sends no such
 * headers is not paced: its 429s are retried (retry.ts).
 */
export class RateBudget {
  readonly #deps: PacingDeps;
  /** The lowest RateLimit-Remaining of the current window; undefined while unknown. */
  #remaining: number | undefined;
  /** When the current window resets (ms), the earliest any response of it said. */
  #resetAt: number | undefined;
  #inFlight = 0;
  #answered: Array<() => void> = [];
  #waiting: Promise<void> | undefined;

  constructor(deps: PacingDeps) {
    this.#deps = deps;
  }

  /** Runs one attempt once the budget allows it; `send` hands back the response's headers as soon as they arrive. */
  async paced<T>(send: (answered: (headers: Headers) => void) => Promise<T>): Promise<T> {
    await this.acquire();
    let settled = false;
    try {
      return await send((headers) => {
        settled = true;
        this.settle(headers);
      });
    } finally {
      if (!settled) this.settle(undefined);
    }
  }

  /** Before each attempt: returns once the attempt may be sent. Pair with settle(). */
  async acquire(): Promise<void> {
    for (;;) {
      if (this.#deps.signal?.aborted) throw new InterruptedError();
      const left = this.#remaining;
      if (left === undefined || left - this.#inFlight > 0) {
        this.#inFlight += 1;
        return;
      }
      // Budget left, all of it promised to requests on their way: their answers say what is left.
      if (left > 0 && this.#inFlight > 0) await new Promise<void>((resolve) => this.#answered.push(resolve));
      else await this.#waitForReset();
    }
  }

  /** After each attempt, with the response's headers (any status), or none where no response came. */
  settle(headers: Headers | undefined): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    const remaining = headers && count(headers, 'ratelimit-remaining');
    const reset = headers && count(headers, 'ratelimit-reset');
    if (remaining !== undefined && reset !== undefined) {
      const now = this.#deps.now();
      const at = now + reset * 1000;
      const newWindow = this.#resetAt === undefined || this.#remaining === undefined || now >= this.#resetAt || at >= this.#resetAt + SAME_WINDOW_MS;
      this.#remaining = newWindow ? remaining : Math.min(this.#remaining!, remaining);
      this.#resetAt = newWindow ? at : Math.min(this.#resetAt!, at);
    }
    const waiting = this.#answered;
    this.#answered = [];
    for (const wake of waiting) wake();
  }

  /**
   * One wait for everyone: the first request to find the budget spent sleeps until the reset, the
   * others join it. The shared promise is forgotten only after it was stored: a wait with nothing
   * to wait for settles at once, and clearing it from inside would leave a settled promise behind,
   * on which acquire() would then loop without ever yielding to the event loop (no timer, no signal).
   */
  #waitForReset(): Promise<void> {
    if (this.#waiting) return this.#waiting;
    const waiting = this.#sleepUntilReset().finally(() => {
      if (this.#waiting === waiting) this.#waiting = undefined;
    });
    this.#waiting = waiting;
    return waiting;
  }

  async #sleepUntilReset(): Promise<void> {
    const { now, random, sleep, signal, log } = this.#deps;
    const until = (this.#resetAt ?? 0) - now();
    // Past the reset already (a retry's Retry-After has waited it out): nothing to wait for.
    if (until > 0) {
      const ms = until + Math.floor(random() * RESET_JITTER_MS);
      log?.(
        `rate limit: this key's budget is spent (RateLimit-Remaining: 0); waiting ${(ms / 1000).toFixed(1)}s until its window resets (RateLimit-Reset), instead of meeting a 429`,
      );
      await sleep(ms, signal);
    }
    // The window has reset: its budget is unknown again until the next answer.
    this.#remaining = undefined;
    this.#resetAt = undefined;
  }
}
