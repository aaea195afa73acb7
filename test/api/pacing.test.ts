/**
 * The request budget of one client (src/api/pacing.ts, cli-contract 6, v4), on a fake clock: when
 * RateLimit-Remaining reaches 0 the next request waits for RateLimit-Reset plus jitter, once for
 * every worker; requests on their way count against what is left, so parallel workers do not
 * overspend it; a service without the headers is never paced.
 */
import { describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/api/pacing.js';

function budget(random = 0) {
  let now = Date.parse('2026-11-26T05:00:00Z');
  const sleeps: number[] = [];
  const lines: string[] = [];
  const b = new RateBudget({
    now: () => now,
    random: () => random,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    log: (l) => lines.push(l),
  });
  return { b, sleeps, lines, advance: (ms: number) => (now += ms) };
}

const headers = (remaining: number, reset: number) => ({ 'ratelimit-limit': '10', 'ratelimit-remaining': String(remaining), 'ratelimit-reset': String(reset) });
/** Whether `p` has settled once pending callbacks have run. */
async function done(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  return settled;
}

describe('RateBudget', () => {
  it('a service without RateLimit-* headers is never paced', async () => {
    const { b, sleeps } = budget();
    for (let i = 0; i < 50; i++) {
      await b.acquire();
      b.settle({});
    }
    expect(sleeps).toEqual([]);
  });

  it('Remaining 0: the next request waits until the window resets, plus jitter, and says so', async () => {
    const { b, sleeps, lines, advance } = budget(0.5);
    await b.acquire();
    b.settle(headers(0, 8));
    advance(3000);
    await b.acquire();
    expect(sleeps).toEqual([5000 + 250]);
    expect(lines).toEqual([
      "rate limit: this key's budget is spent (RateLimit-Remaining: 0); waiting 5.3s until its window resets (RateLimit-Reset), instead of meeting a 429",
    ]);
    // The new window's budget is unknown until its first answer: no second wait.
    b.settle(headers(9, 10));
    await b.acquire();
    expect(sleeps).toHaveLength(1);
  });

  it('parallel workers share it: requests on their way count, and one wait serves every worker', async () => {
    const { b, sleeps } = budget();
    await b.acquire();
    b.settle(headers(2, 10));
    const a = [b.acquire(), b.acquire(), b.acquire(), b.acquire()];
    expect(await Promise.all(a.map(done))).toEqual([true, true, false, false]);
    // One answer: 1 left, one request still on its way, so nothing more may go yet.
    b.settle(headers(1, 10));
    expect(await done(a[2]!)).toBe(false);
    // The other: 0 left. The two waiting workers wait for the reset together, once.
    b.settle(headers(0, 10));
    await Promise.all(a);
    expect(sleeps).toEqual([10_000]);
  });

  it('a retry that already waited out Retry-After past the reset adds no wait', async () => {
    const { b, sleeps, advance } = budget();
    await b.acquire();
    b.settle(headers(0, 4));
    advance(4500);
    await b.acquire();
    expect(sleeps).toEqual([]);
  });
});
