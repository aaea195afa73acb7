/**
 * Pacing on the rate-limit headers (cli-contract 6, v4), through the built CLI against a fake service
 * on loopback with a small fixed-window limit (test/support/history-service.ts): an organization-wide
 * `svc restore drill --all --parallel 4 --dry-run` (a dry run: the selection reads and the database
 * list are the whole of the drill's API traffic besides createRestore, and a real restore per database
 * would add minutes of pg_restore without one more request to pace) runs twice in this test,
 * - against the service sending RateLimit-Remaining and RateLimit-Reset: svc meets at most one 429
 *   per window, and --verbose says when it waited and why;
 * - against the same service without those headers (only 429 + Retry-After): retries alone;
 * and pacing costs no more than retrying: the same work takes no more requests, and the waits svc
 * announced (pacing's `waiting N.Ns`, the retries' `retrying in Ns`) add up to no more. Both are
 * counted, not timed: the wall time of two runs on a loaded machine says nothing (speed is for
 * `npm run bench`). All the databases' reads share one budget: the dry run reads eight databases at
 * once through one client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { HistoryService, history } from '../support/history-service.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { cleanEnv, cleanupE2e, ensureBuilt, svc } from './helpers.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/e2e/pacing.test.ts skipped: ${skip}`);

const NOW = Date.parse('2026-11-21T12:00:00Z');
const DATABASES = 14;
const LIMIT = 12;
const WINDOW_MS = 2_000;

/** The seconds of every wait a run's stderr announced: pacing's waits for a reset, and each retry's. */
function announcedWaits(stderr: string): { pacing: number[]; retries: number[] } {
  const seconds = (re: RegExp) => [...stderr.matchAll(re)].map((m) => Number(m[1]));
  return {
    pacing: seconds(/waiting (\d+(?:\.\d+)?)s until its window resets/g),
    retries: seconds(/retrying in (\d+(?:\.\d+)?)s/g),
  };
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe.skipIf(!!skip)('pacing on RateLimit-Remaining and RateLimit-Reset', () => {
  const services: HistoryService[] = [];
  afterEach(async () => {
    await Promise.all(services.map((s) => s.stop()));
    services.length = 0;
    cleanupE2e();
  });

  async function drill(headers: boolean) {
    const databases = Array.from({ length: DATABASES }, (_, i) => {
      const id = `db_app_${String(i + 1).padStart(2, '0')}`;
      return { id, jobs: history(id, 3, { newestAt: NOW - 3_600_000 }) };
    });
    const service = await new HistoryService({ databases, pageSize: 100, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, headers } }).start();
    services.push(service);
    const r = await svc(['restore', 'drill', '--all', '--parallel', '4', '--dry-run', '--json', '--verbose', '--max-retries', '10'], {
      env: cleanEnv({ SVC_BASE_URL: service.baseUrl, SVC_API_KEY: 'svc_test_pacing_token' }),
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const doc = (JSON.parse(r.stdout) as DrillDocument).drill;
    expect(doc.databases.map((d) => d.result)).toEqual(Array(DATABASES).fill('planned'));
    return { stderr: r.stderr, waits: announcedWaits(r.stderr), requests: service.requests.length, tooMany: service.tooMany, windows: service.windows };
  }

  it('--all --parallel 4 meets at most one 429 per window, says when it waited, and costs no more requests nor waits than retries alone', async () => {
    await ensureBuilt();
    const paced = await drill(true);
    const retried = await drill(false);

    // Enough requests to need several windows, so both runs had to wait.
    expect(paced.requests - paced.tooMany.length).toBeGreaterThan(3 * LIMIT);
    const perWindow = new Map<number, number>();
    for (const w of paced.tooMany) perWindow.set(w, (perWindow.get(w) ?? 0) + 1);
    expect(
      [...perWindow.values()].every((n) => n <= 1),
      `429s per window: ${JSON.stringify([...perWindow])}`,
    ).toBe(true);
    expect(paced.stderr).toMatch(
      /^rate limit: this key's budget is spent \(RateLimit-Remaining: 0\); waiting \d+\.\ds until its window resets \(RateLimit-Reset\), instead of meeting a 429$/m,
    );
    expect(retried.tooMany.length).toBeGreaterThan(0);
    expect(retried.stderr).toContain('Rate limited; retrying in');

    const pacedWait = sum(paced.waits.pacing) + sum(paced.waits.retries);
    const retriedWait = sum(retried.waits.retries);
    console.info(
      `pacing: paced ${paced.requests} requests, ${paced.tooMany.length} 429s over ${paced.windows} windows, ` +
        `${pacedWait.toFixed(1)} s announced (${paced.waits.pacing.length} paced waits, ${paced.waits.retries.length} retries); ` +
        `retries alone ${retried.requests} requests, ${retried.tooMany.length} 429s over ${retried.windows} windows, ` +
        `${retriedWait.toFixed(1)} s announced (${retried.waits.retries.length} retries)`,
    );
    // The same work: every request that was answered is one the drill needed, in either run.
    expect(paced.requests - paced.tooMany.length).toBe(retried.requests - retried.tooMany.length);
    // No more requests: retries alone meet a 429 for every worker still sending once a window's
    // budget is spent; pacing stops them all at the first.
    expect(paced.tooMany.length).toBeLessThanOrEqual(retried.tooMany.length);
    // No more waiting: each 429 alone costs a wait of at least its Retry-After (a whole second or
    // more); pacing waits once per spent window for everyone, no longer than the reset plus jitter.
    expect(pacedWait).toBeLessThanOrEqual(retriedWait);
  }, 240_000);
});
