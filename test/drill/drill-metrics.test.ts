/**
 * Drill results where operators look (cli-contract 9.14), proved with the real components: Debian's
 * Pushgateway receives the push, node_exporter's textfile collector serves --metrics-file, and a real
 * Prometheus scrapes both; the test reads svc_restore_drill_last_success_timestamp_seconds over
 * Prometheus's HTTP API. Then the sequence an alert depends on: a pass, a failure, and the last
 * success's time is still there, at the Pushgateway, in the file and in Prometheus.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { freePort } from '../support/ports.js';
import { eventually, prometheusSkipReason, query, startNodeExporter, startPrometheus, startPushgateway, type Daemon } from '../support/prometheus.js';

const skip = pgSkipReason() ?? prometheusSkipReason();
if (skip) console.warn(`test/drill/drill-metrics.test.ts skipped: ${skip}`);

const LAST_SUCCESS = 'svc_restore_drill_last_success_timestamp_seconds';

/** The value of one series of the Pushgateway's group job=svc_restore_drill, shard=all. */
async function pushed(gateway: string, metric: string, databaseId: string): Promise<number | undefined> {
  const body = (await (await fetch(`${gateway}/api/v1/metrics`)).json()) as { data: Array<Record<string, any>> };
  const group = body.data.find((g) => g.labels?.job === 'svc_restore_drill' && g.labels?.shard === 'all');
  const series = group?.[metric]?.metrics?.find((m: { labels: Record<string, string> }) => m.labels.database_id === databaseId);
  return series === undefined ? undefined : Number(series.value);
}

/** The value of one series in an exposition text. */
function fileValue(text: string, metric: string, databaseId: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${metric}{`) && l.includes(`database_id="${databaseId}"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe.skipIf(!!skip)('drill metrics: --metrics-file and --pushgateway with Prometheus', { timeout: 180_000 }, () => {
  const h = new DrillE2e();
  let gateway: Daemon, exporter: Daemon, prometheus: Daemon;
  let textDir: string;
  let file: string;

  beforeAll(async () => {
    textDir = mkdtempSync(join(tmpdir(), 'svc-textfile-'));
    file = join(textDir, 'svc_drill.prom');
    [gateway, exporter] = await Promise.all([startPushgateway(), startNodeExporter(textDir), h.start()]);
    prometheus = await startPrometheus({ pushgateway: gateway.url, node: exporter.url });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([gateway?.stop(), exporter?.stop(), prometheus?.stop(), h.stop()]);
    if (textDir) rmSync(textDir, { recursive: true, force: true });
  });

  it('a pass reaches the Pushgateway, the textfile collector and Prometheus; a later failure keeps the last success', async () => {
    const pass = await h.drill(['db_orders', 'db_billing', '--metrics-file', file, '--pushgateway', gateway.url, '--json']);
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stderr).toContain(`Metrics pushed to ${gateway.url}`);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    const text = readFileSync(file, 'utf8');
    const passedAt = Math.round(Date.parse(pass.doc!.finishedAt) / 1000);
    expect(fileValue(text, 'svc_restore_drill_success', 'db_orders')).toBe(1);
    expect(fileValue(text, LAST_SUCCESS, 'db_orders')).toBe(passedAt);
    expect(text).toMatch(/^svc_restore_drill_phase_seconds\{database_id="db_orders",database="[^"]+",phase="restore"\} [\d.]+$/m);
    expect(text).toMatch(/^svc_restore_drill_check_success\{database_id="db_orders",database="[^"]+",check="restore_clean"\} 1$/m);
    expect(text).toContain('svc_restore_drill_databases{result="passed"} 2');
    // node_exporter serves the file as written.
    const served = await (await fetch(`${exporter.url}/metrics`)).text();
    expect(fileValue(served, LAST_SUCCESS, 'db_orders')).toBe(passedAt);
    expect(await pushed(gateway.url, LAST_SUCCESS, 'db_orders')).toBe(passedAt);

    // Prometheus scraped both: one series from node_exporter, one pushed (honor_labels keeps job=svc_restore_drill).
    const scraped = await eventually(
      () => query(prometheus.url, `${LAST_SUCCESS}{database_id="db_orders"}`),
      (r) => r.length === 2,
    );
    expect(scraped.map((s) => s.labels.job).sort()).toEqual(['node', 'svc_restore_drill']);
    for (const s of scraped) expect(s.value).toBe(passedAt);

    // A run where db_orders fails (a check that finds its orders table) and db_billing passes: the push
    // carries a new last success for db_billing, and must not erase db_orders' older one with it.
    const check = join(textDir, 'no-orders.sql.txt');
    writeFileSync(check, "-- check: no_orders_table\nSELECT table_name FROM information_schema.tables WHERE table_name = 'orders';\n");
    const fail = await h.drill(['db_orders', 'db_billing', '--check', check, '--metrics-file', file, '--pushgateway', gateway.url, '--json']);
    expect(fail.code, fail.stderr).toBe(13);
    expect(Object.fromEntries(fail.doc!.databases.map((d) => [d.databaseId, d.result]))).toEqual({ db_orders: 'failed', db_billing: 'passed' });
    const billingAt = Math.round(Date.parse(fail.doc!.finishedAt) / 1000);
    expect(await pushed(gateway.url, LAST_SUCCESS, 'db_billing')).toBe(billingAt);
    const after = readFileSync(file, 'utf8');
    expect(fileValue(after, 'svc_restore_drill_success', 'db_orders')).toBe(0);
    expect(fileValue(after, LAST_SUCCESS, 'db_orders')).toBe(passedAt);
    expect(await pushed(gateway.url, 'svc_restore_drill_success', 'db_orders')).toBe(0);
    expect(await pushed(gateway.url, LAST_SUCCESS, 'db_orders')).toBe(passedAt);
    const failing = await eventually(
      () => query(prometheus.url, `svc_restore_drill_success{database_id="db_orders"}`),
      (r) => r.length === 2 && r.every((s) => s.value === 0),
    );
    expect(failing.map((s) => s.value)).toEqual([0, 0]);
    const still = await query(prometheus.url, `${LAST_SUCCESS}{database_id="db_orders"}`);
    expect(still.map((s) => s.value)).toEqual([passedAt, passedAt]);
    expect(fileValue(after, LAST_SUCCESS, 'db_billing')).toBe(billingAt);
  });

  it('a Pushgateway that cannot be reached: the result is printed, then exit 9 naming it', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await h.drill(['db_orders', '--pushgateway', closed, '--max-retries', '0']);
    expect(r.code, r.stderr).toBe(9);
    expect(r.stdout).toMatch(/db_orders\s.*passed/);
    expect(r.stderr).toContain(`Could not reach the Pushgateway at ${closed}/ (ECONNREFUSED)`);
  });

  it('--dry-run with --metrics-file is exit 2 before any request', async () => {
    const r = await h.drill(['db_orders', '--dry-run', '--metrics-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a --dry-run restores nothing');
  });
});
