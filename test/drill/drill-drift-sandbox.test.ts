/**
 * The sandbox's drift database (test/support/sandbox-data.ts, as `npm run demo` serves it):
 * db_inventory's older backup restores the acme-orders seed whole, its newest one the same seed after
 * 90% of its orders were deleted. Both restore faithfully (rows_match passes); a drill of the
 * organization against the report of a drill of the older one fails db_inventory at no_drift, next to
 * db_analytics' failure (no backup), as the demo shows. Skips without a PostgreSQL server, except under CI.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { DRIFT, writeDriftSandboxData } from '../support/sandbox-data.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-drift-sandbox.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('the sandbox database whose newest backup lost rows', { timeout: 180_000 }, () => {
  const data = mkdtempSync(join(tmpdir(), 'svc-drift-sandbox-'));
  const h = new DrillE2e();
  beforeAll(async () => {
    writeDriftSandboxData(data);
    await h.start({ dataDir: data });
  }, 120_000);
  afterAll(async () => {
    await h.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it("the organization drilled against the older backup's report: db_inventory fails no_drift naming orders, beside db_analytics", async () => {
    const baseline = join(h.workDir(), 'baseline');
    const before = await h.drill([DRIFT.databaseId, '--backup', DRIFT.wholeBackup, '--report', baseline]);
    expect(before.code, before.stderr).toBe(0);

    const report = join(h.workDir(), 'report');
    const r = await h.drill(['--all', '--baseline', baseline, '--json', '--report', report]);
    expect(r.code, r.stderr).toBe(13);
    const failed = r.doc!.databases.filter((d) => d.result === 'failed').map((d) => [d.databaseId, d.failure!.check]);
    expect(failed).toEqual([
      ['db_analytics', 'backup_selected'],
      [DRIFT.databaseId, 'no_drift'],
    ]);
    const inventory = r.doc!.databases.find((d) => d.databaseId === DRIFT.databaseId)!;
    expect(inventory.backupJobId).toBe(DRIFT.shrunkBackup);
    expect(inventory.checks.find((c) => c.name === 'rows_match')!.status).toBe('passed');
    expect(inventory.checks.find((c) => c.name === 'no_drift')!.detail).toContain('public.orders: 5,000 row(s) in the baseline, 500 now (-90%)');
    // The databases the baseline does not hold say so, and pass.
    expect(r.doc!.databases.find((d) => d.databaseId === 'db_orders')!.checks.find((c) => c.name === 'no_drift')).toMatchObject({ status: 'skipped' });
    expect(readFileSync(join(report, 'drill.md'), 'utf8')).toContain('- db_inventory (inventory): **failed**: ');

    // --quiet, as a CI job runs it: no progress lines, and the table says why each database failed.
    const quiet = await h.drill(['--all', '--baseline', baseline, '--quiet'], { env: { COLUMNS: '200' } });
    expect(quiet.code, quiet.stderr).toBe(13);
    const rows = quiet.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split(/ {2,}/));
    expect(rows[0]).toEqual(['DATABASE', 'NAME', 'BACKUP', 'AGE', 'RECOVERY', 'RESULT', 'FAILED CHECK', 'WHY']);
    const why = Object.fromEntries(rows.slice(1).map((r) => [r[0], r.length === 8 ? r[7] : '']));
    expect(why).toEqual({
      db_analytics: 'No completed backup with an artifact of analytics (db_analy…',
      db_billing: '',
      db_inventory: 'The restored data shrank against the baseline: 2 drift(s) a…',
      db_orders: '',
    });
    expect(quiet.stderr).not.toContain('db_inventory: restore into');
  });
});
