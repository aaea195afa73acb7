/**
 * no_drift (cli-contract 9.17) with the built CLI, real PostgreSQL and two sandboxes: db_orders'
 * backup serves the committed acme-orders dump in one (customers 1,000, orders 5,000) and, in the
 * other, a dump of the same seed that lost 90% of its orders and gained a table (`notes`, 10 rows).
 * Each drill's report is the next one's --baseline, as a nightly job's previous report would be.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { writeSandboxDataWithArtifact } from '../support/sandbox-data.js';
import { dumpDatabase, seedDatabase } from '../support/seed.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-drift.test.ts skipped: ${skip}`);

const LOST = `
DELETE FROM orders WHERE id % 10 <> 0;
CREATE TABLE public.notes (id int PRIMARY KEY, body text NOT NULL);
INSERT INTO public.notes SELECT g, 'note ' || g FROM generate_series(1, 10) g;
`;

describe.skipIf(!!skip)('no_drift: a drill against an earlier drill of the same database', { timeout: 240_000 }, () => {
  const data = mkdtempSync(join(tmpdir(), 'svc-drill-drift-'));
  const whole = new DrillE2e();
  const shrunk = new DrillE2e();
  /** The report of a drill of the whole dump, and of the shrunk one: the baselines. */
  let wholeReport = '';
  let shrunkReport = '';

  beforeAll(async () => {
    const archive = join(data, 'acme-orders.pgdump');
    const cluster = await workerCluster();
    try {
      await seedDatabase(cluster, 'acme_orders');
      await cluster.psql(LOST, 'acme_orders');
      await dumpDatabase(cluster, 'acme_orders', archive);
    } finally {
      await cluster.stop();
    }
    await writeSandboxDataWithArtifact(join(data, 'sandbox'), 'acme-orders', archive);
    await Promise.all([whole.start(), shrunk.start({ dataDir: join(data, 'sandbox') })]);
    wholeReport = join(whole.workDir(), 'report');
    shrunkReport = join(shrunk.workDir(), 'report');
    const [a, b] = await Promise.all([whole.drill(['db_orders', '--report', wholeReport]), shrunk.drill(['db_orders', '--report', shrunkReport])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
  }, 240_000);
  afterAll(async () => {
    await Promise.allSettled([whole.stop(), shrunk.stop()]);
    rmSync(data, { recursive: true, force: true });
  });

  const check = (doc: DrillDocument['drill'] | undefined, name: string) => doc!.databases[0]!.checks.find((c) => c.name === name);

  it('each database carries a fingerprint: tables with rows and sizes, totals, a schema digest', () => {
    const doc = JSON.parse(readFileSync(join(wholeReport, 'drill.json'), 'utf8')) as DrillDocument;
    const fp = doc.drill.databases[0]!.fingerprint!;
    expect(fp.tables.map((t) => [t.table, t.rows])).toEqual([
      ['public.customers', 1000],
      ['public.orders', 5000],
    ]);
    expect(fp.tables.every((t) => t.sizeBytes > 0)).toBe(true);
    expect(fp.totals).toEqual({ tables: 2, rows: 6000, sizeBytes: fp.tables[0]!.sizeBytes + fp.tables[1]!.sizeBytes });
    expect(fp.schemaDigest).toMatch(/^[0-9a-f]{64}$/);
    const other = (JSON.parse(readFileSync(join(shrunkReport, 'drill.json'), 'utf8')) as DrillDocument).drill.databases[0]!.fingerprint!;
    expect(other.schemaDigest).not.toBe(fp.schemaDigest);
  });

  it('the same backup as its own baseline (the report dir): no_drift passes after rows_match', async () => {
    const r = await whole.drill(['db_orders', '--baseline', wholeReport, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const names = r.doc!.databases[0]!.checks.map((c) => c.name);
    expect(names.slice(names.indexOf('rows_match'), names.indexOf('rows_match') + 2)).toEqual(['rows_match', 'no_drift']);
    expect(check(r.doc, 'no_drift')).toMatchObject({
      status: 'passed',
      detail: '2 table(s), 6,000 row(s) against 6,000 in the baseline; no table lost more than 50% of its rows',
    });
  });

  it('a backup that lost 90% of one table fails no_drift naming it with both counts; report, JUnit and metrics show it', async () => {
    const report = join(shrunk.workDir(), 'report');
    const metrics = join(shrunk.workDir(), 'drill.prom');
    const r = await shrunk.drill(['db_orders', '--baseline', join(wholeReport, 'drill.json'), '--json', '--report', report, '--metrics-file', metrics]);
    expect(r.code, r.stderr).toBe(13);
    const db = r.doc!.databases[0]!;
    expect(check(r.doc, 'rows_match')!.status).toBe('passed');
    const nd = check(r.doc, 'no_drift')!;
    expect(nd.status).toBe('failed');
    expect(nd.detail).toContain('public.orders: 5,000 row(s) in the baseline, 500 now (-90%)');
    expect(nd.detail).toContain('total: 6,000 row(s) in the baseline, 1,510 now (-75%)');
    expect(nd.detail).toContain('new table(s): public.notes');
    expect(nd.detail).not.toContain('public.customers');
    expect(db.failure).toMatchObject({ check: 'no_drift', code: 'data_drift' });
    expect(r.stderr).toContain('db_orders (no_drift)');
    expect(readFileSync(join(report, 'junit.xml'), 'utf8')).toMatch(
      /<testcase classname="db_orders" name="no_drift" time="[\d.]+">\n {4}<failure message="[^"]*public\.orders: 5,000 row\(s\) in the baseline, 500 now/,
    );
    expect(readFileSync(join(report, 'drill.md'), 'utf8')).toMatch(
      /## Drift against the baseline\n\n- db_orders \(orders-prod\): \*\*failed\*\*: .*public\.orders: 5,000/,
    );
    const prom = readFileSync(metrics, 'utf8');
    expect(prom).toContain('svc_restore_drill_rows{database_id="db_orders",database="orders-prod"} 1510');
    expect(prom).toMatch(/svc_restore_drill_size_bytes\{database_id="db_orders",database="orders-prod"\} [1-9]\d+/);
    expect(prom).toContain('svc_restore_drill_check_success{database_id="db_orders",database="orders-prod",check="no_drift"} 0');
  });

  it('a new table passes and is listed, where the shrink stays within --max-shrink', async () => {
    const r = await shrunk.drill(['db_orders', '--baseline', wholeReport, '--max-shrink', '95%', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(check(r.doc, 'no_drift')).toMatchObject({
      status: 'passed',
      detail:
        "3 table(s), 1,510 row(s) against 6,000 in the baseline; no table lost more than 95% of its rows; schema changes (pass): new table(s): public.notes; the schema changed (its digest differs from the baseline's)",
    });
  });

  it('a table of the baseline that is gone fails, however small it was', async () => {
    const r = await whole.drill(['db_orders', '--baseline', shrunkReport, '--json']);
    expect(r.code, r.stderr).toBe(13);
    const nd = check(r.doc, 'no_drift')!;
    expect(nd.status).toBe('failed');
    expect(nd.detail).toContain('public.notes: 10 row(s) in the baseline, table not found');
  });

  it('a database not in the baseline skips no_drift saying why; --no-rows-check cannot be used with --baseline', async () => {
    const r = await whole.drill(['db_billing', '--baseline', wholeReport, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(check(r.doc, 'no_drift')).toMatchObject({ status: 'skipped', detail: `not in the baseline (${join(wholeReport, 'drill.json')})` });
    const off = await whole.drill(['db_orders', '--baseline', wholeReport, '--no-rows-check']);
    expect(off.code).toBe(2);
  });

  it('a baseline that is not a drill document, or is missing, is exit 2 before any createRestore', async () => {
    const bad = join(whole.workDir(), 'drill.json');
    writeFileSync(bad, JSON.stringify({ drill: { startedAt: 'yesterday' } }));
    const before = whole.restoresCreated();
    const r = await whole.drill(['db_orders', '--baseline', bad]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${bad} is not a drill report (docs/drill.schema.json): drill.startedAt`);
    const missing = await whole.drill(['db_orders', '--baseline', join(data, 'nowhere')]);
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toContain('does not exist');
    expect(whole.restoresCreated()).toBe(before);
  });
});
