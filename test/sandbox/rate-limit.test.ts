import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as operations from '../../src/api/operations.js';
import { api, clientFor, raw, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

let sb: TestSandbox;
beforeEach(async () => {
  sb = await startTestSandbox();
});
afterEach(() => sb.stop());

describe('rate limits', () => {
  it('every authenticated response carries RateLimit-Limit, -Remaining and -Reset', async () => {
    const paths = ['/profile', '/databases/db_missing', '/databases?limit=0', '/nope'];
    let remaining = 600;
    for (const path of paths) {
      const res = await raw(sb, 'GET', api(path));
      expect(res.headers['ratelimit-limit'], path).toBe('600');
      expect(res.headers['ratelimit-remaining'], path).toBe(String(--remaining));
      expect(res.headers['ratelimit-reset'], path).toBe('60');
    }
    const forbidden = await raw(sb, 'GET', api('/evidence'), { token: 'read-only' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers['ratelimit-remaining']).toBe('599');
  });

  it('the tiny-budget token gets 429 rate_limited with Retry-After on its 4th request in 10 s', async () => {
    for (let i = 0; i < 3; i++) {
      const ok = await raw(sb, 'GET', api('/profile'), { token: 'tiny-budget' });
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-remaining']).toBe(String(2 - i));
    }
    sb.clock.advance(4_000);
    const limited = await raw(sb, 'GET', api('/profile'), { token: 'tiny-budget' });
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('rate_limited');
    expect(limited.headers['retry-after']).toBe('6');
    expect(limited.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'ratelimit-reset': '6' });
    // Other tokens have their own budget.
    expect((await raw(sb, 'GET', api('/profile'))).status).toBe(200);

    sb.clock.advance(6_000);
    const again = await raw(sb, 'GET', api('/profile'), { token: 'tiny-budget' });
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe('2');
  });

  /** A client of the tiny-budget token on the sandbox's clock, whose sleeps move that clock. */
  const pacedClient = (sleeps: number[], log?: (line: string) => void) =>
    clientFor(sb, 'tiny-budget', {
      maxRetries: 2,
      sleep: async (ms) => {
        sleeps.push(ms);
        sb.clock.advance(ms);
      },
      now: () => sb.clock.now().getTime(),
      log,
    });

  it("svc's client paces on RateLimit-Remaining: it waits for the window's reset before the 4th request, and meets no 429", async () => {
    const sleeps: number[] = [];
    const lines: string[] = [];
    const client = pacedClient(sleeps, (l) => lines.push(l));
    for (let i = 0; i < 4; i++) await client.send(operations.getDatabase('db_orders'));
    expect(sleeps).toEqual([10_000]);
    expect(lines.filter((l) => / 429 /.test(l))).toEqual([]);
    expect(lines.some((l) => /budget is spent \(RateLimit-Remaining: 0\); waiting 10\.0s until its window resets/.test(l))).toBe(true);
    await client.close();
  });

  it("svc's client waits Retry-After when another client spent the budget, and then succeeds", async () => {
    for (let i = 0; i < 3; i++) expect((await raw(sb, 'GET', api('/profile'), { token: 'tiny-budget' })).status).toBe(200);
    const sleeps: number[] = [];
    const client = pacedClient(sleeps);
    await client.send(operations.getDatabase('db_orders'));
    // One wait, the retry's: the window has reset by then, so pacing adds none.
    expect(sleeps).toEqual([10_000]);
    await client.close();
  });

  it('exhausted retries end as exit code 8', async () => {
    const client = clientFor(sb, 'tiny-budget');
    for (let i = 0; i < 3; i++) await client.send(operations.getProfile());
    await expect(client.send(operations.getProfile())).rejects.toMatchObject({ status: 429, exitCode: 8 });
    await client.close();
  });

  it('the drill token has its own budget, large enough for a drill of a 1,000-database organization: 100,000 per 60 s', async () => {
    const res = await raw(sb, 'GET', api('/databases'), { token: 'drill' });
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'ratelimit-limit': '100000', 'ratelimit-remaining': '99999', 'ratelimit-reset': '60' });
  });

  it('unauthenticated answers carry no rate-limit headers', async () => {
    const res = await raw(sb, 'GET', api('/profile'), { token: 'revoked' });
    expect(res.status).toBe(401);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });
});
