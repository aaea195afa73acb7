/**
 * Pacing on the rate-limit headers (cli-contract 6, v4), through the built CLI against a fake service
 * on loopback with a small fixed-window limit (test/support/history-service.ts): an organization-wide
 * `svc restore drill --all --parallel 4 --dry-run` (a dry run: the selection reads and the database
 * list are the whole of the drill's API traffic besides createRestore, and a real restore per database
 * would add minutes of pg_restore without one more request to pace) runs twice in this test,
 * - against the service sending RateLimit-Remaining and RateLimit-Reset: svc meets at most one 429
 *   per window, and --verbose says when it waited and why;
 * - against the same service without those headers (only 429 + Retry-After): retries alone;
 * and the paced run ends no later than the retried one. All the databases' reads share one budget:
 * the dry run reads eight databases at once through one client.
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
    const started = performance.now();
    const r = await svc(['restore', 'drill', '--all', '--parallel', '4', '--dry-run', '--json', '--verbose', '--max-retries', '10'], {
      env: cleanEnv({ SVC_BASE_URL: service.baseUrl, SVC_API_KEY: 'svc_test_pacing_token' }),
      timeoutMs: 120_000,
    });
    const ms = performance.now() - started;
    expect(r.code, r.stderr).toBe(0);
    const doc = (JSON.parse(r.stdout) as DrillDocument).drill;
    expect(doc.databases.map((d) => d.result)).toEqual(Array(DATABASES).fill('planned'));
    return { ms, stderr: r.stderr, requests: service.requests.length, tooMany: service.tooMany, windows: service.windows };
  }

  it('--all --parallel 4 meets at most one 429 per window, says when it waited, and ends no later than with retries alone', async () => {
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

    console.info(
      `pacing: paced ${Math.round(paced.ms)} ms, ${paced.tooMany.length} 429s over ${paced.windows} windows; ` +
        `retries alone ${Math.round(retried.ms)} ms, ${retried.tooMany.length} 429s over ${retried.windows} windows`,
    );
    expect(paced.ms).toBeLessThanOrEqual(retried.ms);
  }, 240_000);
});
