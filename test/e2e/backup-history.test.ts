/**
 * Choosing a backup from a long history (cli-contract 6, v4), through the built CLI against a fake
 * service on loopback (test/support/history-service.ts), with `svc restore drill <db> --dry-run`,
 * which selects exactly as `restore create --database --latest` does and prints what it chose:
 * - the request count does not grow with the history: 250 jobs at a 6-hour cadence cost at most 15
 *   requests (before the bounded read: 236);
 * - ties on completedAt go to the job enqueued later, however the service lists them (before: the
 *   oldest of 228, listed last);
 * - a listed job that answers 404 is skipped, and --verbose says so (before: the drill failed
 *   backup_selected with "Backup job not found");
 * - a service that lists oldest first still gets the right answer: svc reads the whole list then.
 * A dry run still looks for the scratch server's binaries, so this needs PostgreSQL's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { HistoryService, history, type HistoryServiceOptions } from '../support/history-service.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { cleanEnv, cleanupE2e, ensureBuilt, svc } from './helpers.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/e2e/backup-history.test.ts skipped: ${skip}`);

const NOW = Date.parse('2026-11-21T12:00:00Z');
const HOUR = 3_600_000;

describe.skipIf(!!skip)('backup selection reads a bounded part of the history', () => {
  let service: HistoryService | undefined;
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    cleanupE2e();
  });

  async function plan(opts: HistoryServiceOptions, databaseId: string) {
    await ensureBuilt();
    service = await new HistoryService(opts).start();
    const r = await svc(['restore', 'drill', databaseId, '--dry-run', '--json', '--verbose'], {
      env: cleanEnv({ SVC_BASE_URL: service.baseUrl, SVC_API_KEY: 'svc_test_history_token' }),
      timeoutMs: 60_000,
    });
    const doc = r.stdout.trim() ? (JSON.parse(r.stdout) as DrillDocument).drill : undefined;
    return { ...r, db: doc?.databases[0], requests: service.requests };
  }

  it('250 jobs at a 6-hour cadence: the newest, chosen with at most 15 requests', async () => {
    const jobs = history('db_orders', 250, { newestAt: NOW - HOUR });
    const r = await plan({ databases: [{ id: 'db_orders', jobs }], pageSize: 20 }, 'db_orders');
    expect(r.code, r.stderr).toBe(0);
    expect(r.db?.backupJobId).toBe(jobs.at(-1)!.id);
    expect(r.requests.length, r.requests.join('\n')).toBeLessThanOrEqual(15);
    // One page of the list; getBackup from the newest down to the first job enqueued more than 24 h before its completion.
    expect(r.requests.filter((q) => q.startsWith('GET /databases/db_orders/backups'))).toHaveLength(1);
    expect(r.requests.filter((q) => q.startsWith('GET /backups/')).length).toBeLessThanOrEqual(6);
    expect(r.stderr).toMatch(/selection db_orders: stopped at bj_orders_0246, enqueued .*: more than 24h before bj_orders_0250 completed/);
    expect(r.stderr).toMatch(/selection db_orders: 4 getBackup reads of 20 listed jobs \(1 page\); chose bj_orders_0250/);
  });

  it.each(['newest-first', 'oldest-first'] as const)('every completedAt equal, listed %s: the job enqueued last', async (order) => {
    const jobs = history('db_ties', 228, { newestAt: NOW - 2 * HOUR, allCompletedAt: NOW - HOUR });
    const r = await plan({ databases: [{ id: 'db_ties', jobs }], order, pageSize: 50 }, 'db_ties');
    expect(r.code, r.stderr).toBe(0);
    expect(r.db?.backupJobId).toBe('bj_ties_0228');
  });

  it('a service that lists oldest first: the newest all the same, after reading the whole list (said with --verbose)', async () => {
    const jobs = history('db_orders', 250, { newestAt: NOW - HOUR });
    const r = await plan({ databases: [{ id: 'db_orders', jobs }], order: 'oldest-first', pageSize: 20 }, 'db_orders');
    expect(r.code, r.stderr).toBe(0);
    expect(r.db?.backupJobId).toBe('bj_orders_0250');
    expect(r.stderr).toContain('selection db_orders: the service does not list backups newest first; reading the whole list before choosing');
    expect(r.requests.filter((q) => q.startsWith('GET /databases/db_orders/backups'))).toHaveLength(13);
    expect(r.requests.filter((q) => q.startsWith('GET /backups/')).length).toBeLessThanOrEqual(6);
  });

  it('the newest listed job answers 404 (removed by retention): skipped, said with --verbose, the next one chosen', async () => {
    const jobs = history('db_orders', 40, { newestAt: NOW - HOUR });
    const r = await plan({ databases: [{ id: 'db_orders', jobs }], vanished: ['bj_orders_0040'] }, 'db_orders');
    expect(r.code, r.stderr).toBe(0);
    expect(r.db).toMatchObject({ result: 'planned', backupJobId: 'bj_orders_0039' });
    expect(r.stderr).toContain(
      'selection db_orders: bj_orders_0040 is listed but getBackup answered 404 (removed by retention since the list was read?); skipped',
    );
  });
});
