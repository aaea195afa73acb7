/**
 * A report that survives the run's end (cli-contract 9.18), with the built CLI against the sandbox and
 * its own scratch cluster: SIGTERM during the second of two databases still writes --report and
 * --metrics-file after the clean-up, the first database with its results and the second not_run
 * (interrupted); --deadline starts no database once it has passed, and reports those it did not
 * start; `drill merge` takes such a report and counts them apart.
 *
 * The SQL check sleeps in db_orders only (sorted by id, the second of db_billing and db_orders), and
 * the signal is sent once the sleep is seen in pg_stat_activity: no timing is assumed.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { expectNoSecrets, spawnSvc, svc } from '../e2e/helpers.js';
import { DrillE2e, expectNothingLeft, scratchCounts } from '../support/drill-e2e.js';
import { readJunit } from '../support/junit.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { prometheusSkipReason, startPushgateway, type Daemon } from '../support/prometheus.js';
import { waitFor } from '../support/restore-harness.js';

const skip = pgSkipReason() ?? prometheusSkipReason();
if (skip) console.warn(`test/drill/drill-signals-report.test.ts skipped: ${skip}`);

const SLEEPING_IN_ORDERS = "SELECT count(*) FROM pg_stat_activity WHERE datname LIKE 'svc\\_drill\\_db\\_orders\\_%' AND wait_event = 'PgSleep'";

describe.skipIf(!!skip)('svc restore drill: the report survives a signal and --deadline', { timeout: 180_000 }, () => {
  const h = new DrillE2e();
  let gateway: Daemon;
  let sleepy = '';
  let slow = '';

  beforeAll(async () => {
    [gateway] = await Promise.all([startPushgateway(), h.start()]);
    sleepy = join(h.workDir(), 'sleepy.sql');
    writeFileSync(
      sleepy,
      "-- check: sleeps_in_orders\nSELECT 1 FROM pg_sleep(CASE WHEN current_database() LIKE 'svc_drill_db_orders_%' THEN 60 ELSE 0 END) WHERE random() < 0\n",
    );
    slow = join(h.workDir(), 'slow.sql');
    writeFileSync(slow, '-- check: takes_two_seconds\nSELECT 1 FROM pg_sleep(2) WHERE random() < 0\n');
  }, 120_000);
  afterAll(() => Promise.all([gateway?.stop(), h.stop()]));

  /** Whether db_orders' check sleeps in the scratch cluster in `workDir`. */
  const sleepingInOrders = (workDir: string) => scratchCounts(workDir, SLEEPING_IN_ORDERS);

  const readDoc = (report: string) => (JSON.parse(readFileSync(join(report, 'drill.json'), 'utf8')) as DrillDocument).drill;

  it('SIGTERM during the second of two databases: exit 143, and a report with the first passed and the second not_run (interrupted)', async () => {
    const workDir = h.workDir();
    const report = join(h.workDir(), 'report');
    const metrics = join(h.workDir(), 'drill.prom');
    const child = spawnSvc(
      [
        'restore',
        'drill',
        'db_orders',
        'db_billing',
        '--check',
        sleepy,
        '--report',
        report,
        '--metrics-file',
        metrics,
        '--pushgateway',
        gateway.url,
        '--work-dir',
        workDir,
      ],
      {
        env: h.sb.env('drill', {}),
        timeoutMs: 150_000,
      },
    );
    await waitFor("db_orders' check to sleep", () => sleepingInOrders(workDir), 90_000);
    child.kill('SIGTERM');
    const r = await child;
    const out = { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    expect(out.code, out.stderr).toBe(143);
    expectNothingLeft(workDir, out);
    expectNoSecrets(`${out.stdout}${out.stderr}`);
    expect(out.stderr).toContain(`Report of the interrupted drill: ${report}/drill.md`);

    const doc = readDoc(report);
    expect(doc.databases.map((d) => [d.databaseId, d.result])).toEqual([
      ['db_billing', 'passed'],
      ['db_orders', 'not_run'],
    ]);
    expect(doc.databases[1]!.failure).toEqual({
      check: 'interrupted',
      code: 'interrupted',
      message: "Interrupted (SIGTERM) before this database's drill finished.",
    });
    expect(doc.databases[1]!.exitCode).toBe(143);
    expect([doc.passed, doc.failed, doc.notRun]).toEqual([1, 0, 1]);
    expect(readdirSync(join(report, 'receipts'))).toEqual(['db_billing.json']);

    const suite = await readJunit(join(report, 'junit.xml'));
    expect(suite.attributes.errors).toBe('1');
    expect(suite.cases.filter((c) => c.classname === 'db_orders').map((c) => [c.name, c.children])).toEqual([['interrupted', ['error']]]);
    const junit = readFileSync(join(report, 'junit.xml'), 'utf8');
    expect(junit).toMatch(
      /<testcase classname="db_orders" name="interrupted" time="0.000">\n {4}<error message="Interrupted \(SIGTERM\) before this database&apos;s drill finished\." type="interrupted">/,
    );
    expect(junit).toMatch(/<testcase classname="db_billing" name="rows_match" time="[\d.]+"\/>/);
    expect(readFileSync(join(report, 'drill.md'), 'utf8')).toContain('| db_orders (orders-prod) | - | - | - | **not run** | interrupted |');

    const prom = readFileSync(metrics, 'utf8');
    expect(prom).toContain('svc_restore_drill_success{database_id="db_billing",database="billing"} 1');
    expect(prom).not.toContain('database_id="db_orders"');
    expect(prom).toContain('svc_restore_drill_databases{result="not_run"} 1');
    // The same pushed, after the clean-up, though the run's own signal was spent.
    const pushed = (await (await fetch(`${gateway.url}/metrics`)).text()).split('\n');
    const line = (metric: string, label: string) =>
      pushed.find((l) => l.startsWith(`${metric}{`) && l.includes(label) && l.includes('job="svc_restore_drill"'));
    expect(line('svc_restore_drill_success', 'database_id="db_billing"')).toMatch(/ 1$/);
    expect(line('svc_restore_drill_success', 'database_id="db_orders"')).toBeUndefined();
    expect(line('svc_restore_drill_databases', 'result="not_run"')).toMatch(/ 1$/);
  });

  it('--deadline: the databases not started are reported not_run (deadline), exit 13; merge counts them apart', async () => {
    const report = join(h.workDir(), 'report');
    // Each database's drill takes at least 2 s (its check sleeps), so the second starts after a 1 s deadline at the latest.
    const r = await h.drill(['db_billing', 'db_orders', '--check', slow, '--deadline', '1s', '--report', report]);
    expect(r.code, r.stderr).toBe(13);
    const doc = readDoc(report);
    const orders = doc.databases.find((d) => d.databaseId === 'db_orders')!;
    expect(orders.result).toBe('not_run');
    expect(orders.failure).toEqual({ check: 'deadline', code: 'deadline_reached', message: 'Not started: --deadline 1s had passed since the run began.' });
    expect(orders.checks).toEqual([]);
    const billing = doc.databases.find((d) => d.databaseId === 'db_billing')!;
    expect(['passed', 'not_run']).toContain(billing.result);
    expect(doc.notRun).toBe(doc.databases.filter((d) => d.result === 'not_run').length);
    expect(r.stderr).toContain('db_orders: not run: Not started: --deadline 1s had passed since the run began.');
    expect(r.stderr).toMatch(/were not run: .*db_orders \(deadline\)/);
    expect(readFileSync(join(report, 'junit.xml'), 'utf8')).toMatch(
      /<testcase classname="db_orders" name="deadline" time="0.000">\n {4}<error message="Not started: --deadline 1s/,
    );

    const merged = join(h.workDir(), 'merged');
    const m = await svc(['restore', 'drill', 'merge', report, '--report', merged], { env: h.sb.env('drill', {}) });
    expect(m.code, m.stderr).toBe(13);
    const out = readDoc(merged);
    expect(out.notRun).toBe(doc.notRun);
    expect(out.passed + out.failed + out.notRun!).toBe(2);
    expect(m.stderr).toMatch(/database\(s\) not run \(.*db_orders\)/);
  });

  it('--deadline takes the duration syntax of --max-age: anything else is exit 2 before any request', async () => {
    const r = await h.drill(['db_orders', '--deadline', '50 minutes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Invalid --deadline "50 minutes"');
  });
});
