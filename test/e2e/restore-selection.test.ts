/**
 * Choosing the backup by database and time, or by recovery window, instead of by id (cli-contract 7,
 * step 0): `svc restore create --database db_orders --latest | --before <time>` and `--window
 * rw_0003`, through the built CLI against the sandbox, restoring into a throwaway PostgreSQL cluster.
 * The choice is printed on stderr before anything else happens and is carried in the --json
 * document and the receipt. db_orders' only completed backup is bj_0007; rw_0003's baseline is
 * bj_0007. Skips without a PostgreSQL server, except under CI.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgSkipReason, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { cleanupE2e, ensureBuilt, errorEnvelope, registerSecret, startE2eSandbox, svc, tempDir, type E2eSandbox } from './helpers.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/e2e/restore-selection.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('restore create --database --latest / --before, --window', () => {
  const password = `sel:${randomBytes(6).toString('hex')}`;
  let sb: E2eSandbox;
  let cluster: PgCluster;
  let completedAt = '';
  let startedAt = '';

  beforeAll(async () => {
    registerSecret(password, 'dsnPasswords');
    const [built, sandbox, pg] = await Promise.allSettled([ensureBuilt(), startE2eSandbox(), workerCluster({ password })]);
    if (sandbox.status === 'fulfilled') sb = sandbox.value;
    if (pg.status === 'fulfilled') cluster = pg.value;
    for (const r of [built, sandbox, pg]) if (r.status === 'rejected') throw r.reason;
    ({ startedAt, completedAt } = JSON.parse((await svc(['backups', 'get', 'bj_0007', '--json'], { env: sb.env() })).stdout));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([cluster?.stop(), sb?.stop()]);
    cleanupE2e();
  });

  const env = (db: string) => sb.env('full', { SVC_TARGET_DSN: cluster.dsn(db, true) });
  const restores = () => sb.requests.filter((e) => e.method === 'POST' && e.path === '/api/v1/restores').length;
  const exists = async (db: string) => (await cluster.psql(`SELECT count(*) FROM pg_database WHERE datname = '${db}'`)) === '1';
  /** "Using bj_0007, started <time>, completed <time> (<age> ago, age from its start): <why>." as the first line of stderr. */
  const using = (why: string) =>
    new RegExp(`^Using bj_0007, started ${startedAt}, completed ${completedAt} \\(.+ ago, age from its start\\): ${why.replace(/[()]/g, '\\$&')}\\.$`);

  it('--latest: the newest completed backup, said first on stderr, in --json and in the receipt', async () => {
    const receipt = join(tempDir('receipt'), 'receipt.json');
    const r = await svc(['restore', 'create', '--database', 'db_orders', '--latest', '--json', '--receipt', receipt], { env: env('sel_latest') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toMatch(using('the newest completed backup of orders-prod (db_orders)'));
    const doc = JSON.parse(r.stdout);
    const selection = { rule: 'latest', backupJobId: 'bj_0007', startedAt, completedAt };
    expect(doc.backupSelection).toEqual(selection);
    expect(doc.execution.receipt.backupSelection).toEqual(selection);
    expect(JSON.parse(readFileSync(receipt, 'utf8')).backupSelection).toEqual(selection);
    expect(await cluster.psql('SELECT count(*) FROM orders', 'sel_latest')).toBe('5000');
  });

  it('--before its completion time: the same backup (at or before), the rule and the time recorded', async () => {
    const r = await svc(['restore', 'create', '--database', 'db_orders', '--before', completedAt, '--json'], { env: env('sel_before') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toMatch(using(`the newest completed backup of orders-prod (db_orders) at or before ${completedAt}`));
    expect(JSON.parse(r.stdout).backupSelection).toEqual({ rule: 'before', before: completedAt, backupJobId: 'bj_0007', startedAt, completedAt });
  });

  it('--before one second earlier: exit 7 no_eligible_backup naming the database and the time; nothing created', async () => {
    const before = new Date(Date.parse(completedAt) - 1000).toISOString().replace('.000Z', 'Z');
    const created = restores();
    const r = await svc(['restore', 'create', '--database', 'db_orders', '--before', before], { env: env('sel_too_early') });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: No completed backup with an artifact of orders-prod (db_orders) at or before ${before}: there is nothing to restore.`);
    expect(r.stderr).toContain('List its backups with: svc backups list db_orders');
    expect(restores()).toBe(created);
    expect(await exists('sel_too_early')).toBe(false);

    const json = await svc(['restore', 'create', '--database', 'db_orders', '--before', before, '--json'], { env: env('sel_too_early') });
    expect(json.code).toBe(7);
    expect(errorEnvelope(json.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'no_eligible_backup' });
  });

  it('--window rw_0003: its baseline backup', async () => {
    const r = await svc(['restore', 'create', '--window', 'rw_0003', '--json'], { env: env('sel_window') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toMatch(using('the baseline backup of recovery window rw_0003'));
    const doc = JSON.parse(r.stdout);
    expect(doc.backupSelection).toEqual({ rule: 'window', windowId: 'rw_0003', backupJobId: 'bj_0007', startedAt, completedAt });
    expect(doc.execution.receipt.backupSelection).toEqual(doc.backupSelection);
    expect(doc.restoreJob.databaseId).toBe('db_orders');
  });

  it('a database with no completed backup: exit 7 before anything is created', async () => {
    const created = restores();
    const r = await svc(['restore', 'create', '--database', 'db_analytics', '--latest'], { env: env('sel_none') });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('error: No completed backup with an artifact of analytics (db_analytics): there is nothing to restore.');
    expect(restores()).toBe(created);
    expect(await exists('sel_none')).toBe(false);
  });
});
