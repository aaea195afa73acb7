/**
 * Backup selection over a long history and the recovery point, against the sandbox (a big-org data
 * set, test/support/big-org.ts, whose databases hold 250 jobs each at a 6-hour cadence), through the
 * built CLI, restoring for real into throwaway PostgreSQL clusters:
 * - cli-contract 6 (v4): choosing db_bulk_0001's backup costs at most 15 requests, and `--before`
 *   still finds the newest backup completed by then;
 * - a listed job that answers 404 (removed by retention between the list and the read; staged by a
 *   loopback proxy in front of the sandbox) is skipped by `restore create --database X --latest` and
 *   by a drill, which restore the next one; --verbose says so;
 * - cli-contract 7.10 (v4): db_bulk_0007's dumps take 5 h; its age is measured from startedAt in the
 *   selection line, the drill document, --max-age and the receipt.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBigOrgData, type BigOrg } from '../support/big-org.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { registerSecret, svc } from '../e2e/helpers.js';
import { listenOnLoopback } from '../support/ports.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-selection.test.ts skipped: ${skip}`);

/** A proxy on loopback in front of the sandbox that answers 404 to getBackup of `vanished`, as a service whose retention removed it. */
async function vanishingProxy(target: string, vanished: string): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === `/api/v1/backups/${vanished}`) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'not_found', message: 'Backup job not found.', requestId: 'req_vanished' } }));
      return;
    }
    const up = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe.skipIf(!!skip)('selection over 250 jobs per database, a vanished job, the recovery point from startedAt', () => {
  const h = new DrillE2e();
  const data = mkdtempSync(join(tmpdir(), 'svc-drill-history-'));
  const password = `hist:${randomBytes(6).toString('hex')}`;
  let org: BigOrg;
  let cluster: PgCluster;
  let proxy: Awaited<ReturnType<typeof vanishingProxy>>;
  /** db_bulk_0001's jobs, newest enqueued first, read from the sandbox. */
  let jobs: Array<{ id: string; state: string; startedAt?: string; completedAt?: string }>;

  beforeAll(async () => {
    registerSecret(password, 'dsnPasswords');
    org = writeBigOrgData(data, { databases: 10, jobsPerDatabase: 250 });
    const [, pg] = await Promise.all([h.start({ dataDir: org.dir, recentTimestamps: true }), workerCluster({ password })]);
    cluster = pg;
    const listed = await svc(['backups', 'list', 'db_bulk_0001', '--all', '--json'], { env: h.sb.env('drill') });
    expect(listed.code, listed.stderr).toBe(0);
    const ids = (JSON.parse(listed.stdout).backupJobs as Array<{ id: string }>).map((j) => j.id);
    jobs = [];
    for (const id of ids.slice(0, 12)) jobs.push(JSON.parse((await svc(['backups', 'get', id, '--json'], { env: h.sb.env('drill') })).stdout));
    proxy = await vanishingProxy(h.sb.baseUrl, org.newestCompleted.get('db_bulk_0001')!);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([proxy?.stop(), cluster?.stop(), h.stop()]);
    rmSync(data, { recursive: true, force: true });
  });

  const requestsDuring = async <T>(run: () => Promise<T>) => {
    const before = h.sb.requests.length;
    const value = await run();
    return { value, requests: h.sb.requests.slice(before) };
  };

  it('db_bulk_0001 (250 jobs): its newest completed backup, chosen with at most 15 requests; --before finds the newest completed by then', async () => {
    const { value: r, requests } = await requestsDuring(() => h.drill(['db_bulk_0001', '--dry-run', '--json'], { token: 'drill' }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc!.databases[0]!.backupJobId).toBe(org.newestCompleted.get('db_bulk_0001'));
    expect(requests.length, requests.map((q) => `${q.method} ${q.path}`).join('\n')).toBeLessThanOrEqual(15);

    // 20 h before the newest job's completion: the newest job completed by then, as a full read of the list finds it.
    const before = new Date(Date.parse(jobs[0]!.completedAt!) - 20 * 3_600_000).toISOString().replace('.000Z', 'Z');
    const expected = jobs
      .filter((j) => j.state === 'completed' && Date.parse(j.completedAt!) <= Date.parse(before))
      .sort((a, b) => Date.parse(b.completedAt!) - Date.parse(a.completedAt!))[0]!;
    const b = await h.drill(['db_bulk_0001', '--before', before, '--dry-run', '--json'], { token: 'drill' });
    expect(b.code, b.stderr).toBe(0);
    expect(b.doc!.databases[0]!.backupJobId).toBe(expected.id);
  });

  it('restore create --database --latest: the newest job answers 404, so the next one is restored; --verbose says why', async () => {
    const vanished = org.newestCompleted.get('db_bulk_0001')!;
    const next = jobs.find((j) => j.id !== vanished && j.state === 'completed')!;
    const r = await svc(['restore', 'create', '--database', 'db_bulk_0001', '--latest', '--json', '--verbose'], {
      env: h.sb.env('drill', { SVC_BASE_URL: proxy.baseUrl, SVC_TARGET_DSN: cluster.dsn('hist_vanished', true) }),
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `selection db_bulk_0001: ${vanished} is listed but getBackup answered 404 (removed by retention since the list was read?); skipped`,
    );
    expect(r.stderr).toMatch(new RegExp(`^Using ${next.id}, started ${next.startedAt}, completed ${next.completedAt} \\(.+ ago, age from its start\\)`, 'm'));
    expect(JSON.parse(r.stdout).backupSelection).toMatchObject({ rule: 'latest', backupJobId: next.id });
    expect(await cluster.psql('SELECT count(*) FROM orders', 'hist_vanished')).toBe('5000');
  });

  it('a drill: the newest job answers 404, so the next one is drilled and passes', async () => {
    const vanished = org.newestCompleted.get('db_bulk_0001')!;
    const next = jobs.find((j) => j.id !== vanished && j.state === 'completed')!;
    const r = await h.drill(['db_bulk_0001', '--json', '--verbose'], { token: 'drill', env: { SVC_BASE_URL: proxy.baseUrl } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc!.databases[0]).toMatchObject({ result: 'passed', backupJobId: next.id });
    expect(r.stderr).toContain(`${vanished} is listed but getBackup answered 404`);
  });

  it('a backup that took 5 hours: its age runs from its start in the line, the document, --max-age and the receipt', async () => {
    const plan = await h.drill(['db_bulk_0007', '--dry-run', '--json'], { token: 'drill' });
    expect(plan.code, plan.stderr).toBe(0);
    const planned = plan.doc!.databases[0]!;
    const started = Date.parse(planned.backupStartedAt!);
    const completed = Date.parse(planned.backupCompletedAt!);
    expect(completed - started).toBeGreaterThan(4.9 * 3_600_000);
    expect(Math.abs(planned.backupAgeSeconds! - (Date.now() - started) / 1000)).toBeLessThan(120);

    // 3 h: passed were the age counted from completion (1 h), failed from the start (6 h).
    const report = join(h.workDir(), 'report');
    const r = await h.drill(['db_bulk_0007', '--max-age', '3h', '--json', '--report', report], { token: 'drill' });
    expect(r.code, r.stderr).toBe(13);
    const db = r.doc!.databases[0]!;
    expect(db.failure).toMatchObject({ check: 'max_age', code: 'max_age_exceeded' });
    expect(db.checks.find((c) => c.name === 'max_age')!.detail).toMatch(/^backup age (5h5\dm|6h\d*m?) \(from its start\), at most 3h$/);
    expect(db.checks.find((c) => c.name === 'backup_selected')!.detail).toMatch(
      new RegExp(`^Using ${db.backupJobId}, started ${db.backupStartedAt}, completed ${db.backupCompletedAt} \\([56]h ago, age from its start\\)`),
    );
    const receipt = JSON.parse(readFileSync(join(report, 'receipts', 'db_bulk_0007.json'), 'utf8'));
    expect(receipt).toMatchObject({ backupStartedAt: db.backupStartedAt, backupCompletedAt: db.backupCompletedAt });
    expect(receipt.backupSelection).toMatchObject({ startedAt: db.backupStartedAt, completedAt: db.backupCompletedAt });
    rmSync(report, { recursive: true });
  });
});
