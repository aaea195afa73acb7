/**
 * restore create / restore run end to end: createRestore against the sandbox, the presigned
 * download from it, and pg_restore into one throwaway PostgreSQL cluster shared by the file. The
 * human restore and the unusable TMPDIRs run the built bin/svc; the rest run in-process (the same
 * env, TMPDIR and secret scan), as no process boundary is under test there.
 * Exit codes here: 0, 2 (non-empty target, unusable TMPDIR), 6 (same idempotency key, other target), 7 (backup not
 * completed), 10 (tampered expectedSha256). Skips without a PostgreSQL server, except under CI.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgSkipReason, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { describeDatabase } from '../support/seed.js';
import {
  cleanupE2e,
  ensureBuilt,
  errorEnvelope,
  registerSecret,
  startE2eSandbox,
  svc as svcChild,
  svcInProcess,
  type E2eSandbox,
  type SvcOptions,
} from './helpers.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/e2e/restore.test.ts skipped: ${skip}`);

const ARTIFACT_SHA = '431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55';
/** What fixtures/artifacts/acme-orders.pgdump holds (fixtures/pg/seed.sql). */
const SEED_TABLES = { customers: 1000, orders: 5000 };
/** Coordinates and lock tokens must never be printed, whoever made them. */
const NO_COORDINATES = /lk_[0-9a-f]{16}|X-Amz-Signature|\/artifacts\//;

describe.skipIf(!!skip)('restore into a throwaway PostgreSQL cluster', () => {
  // Characters that need escaping in a URI and in a PGPASSFILE line.
  const password = `e2e:p@ss/w%rd\\${randomBytes(6).toString('hex')}`;
  let sb: E2eSandbox;
  let cluster: PgCluster;

  beforeAll(async () => {
    registerSecret(password, 'dsnPasswords');
    const [built, sandbox, pg] = await Promise.allSettled([ensureBuilt(), startE2eSandbox(), workerCluster({ password })]);
    // Keep whatever started, so afterAll stops it even when another part failed.
    if (sandbox.status === 'fulfilled') sb = sandbox.value;
    if (pg.status === 'fulfilled') cluster = pg.value;
    for (const r of [built, sandbox, pg]) if (r.status === 'rejected') throw r.reason;
  });

  afterAll(async () => {
    await Promise.all([cluster?.stop(), sb?.stop()]);
    cleanupE2e();
  });

  /** The cluster's own client tools first on PATH: the same major version as the server. */
  const env = (extra: Record<string, string> = {}) => sb.env('full', { PATH: `${cluster.binDir}${delimiter}${process.env.PATH}`, ...extra });
  const withPassword = (db: string) => ({ SVC_TARGET_DSN: cluster.dsn(db, true) });
  const databaseExists = async (db: string) => (await cluster.psql(`SELECT count(*) FROM pg_database WHERE datname = '${db}'`)) === '1';

  /** A createRestore 202 body from the sandbox, as automation would fetch it for `svc restore run`. */
  async function createRestoreBody(target: string): Promise<any> {
    const res = await request(`${sb.baseUrl}/api/v1/restores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.token('full')}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ backupJobId: 'bj_0007', targetRedactedDsn: cluster.dsn(target), mode: 'new_database', confirmDestructive: false }),
    });
    expect(res.statusCode).toBe(202);
    const body = (await res.body.json()) as any;
    registerSecret(body.execution.lockToken, 'lockTokens');
    registerSecret(body.execution.presignedS3Url, 'presignedUrls');
    return body;
  }

  /** In-process, with the run's own TMPDIR (the password file goes there, and the secret scan looks there). */
  const svc = (args: string[], opts: SvcOptions) => svcInProcess(args, { ...opts, ownTmpdir: true });

  const key = `e2e-restore-${randomUUID()}`;

  it("restore create (human, password in SVC_TARGET_DSN): a new database with exactly the artifact's rows", async () => {
    const r = await svcChild(['restore', 'create', '--backup', 'bj_0007', '--idempotency-key', key], { env: env(withPassword('e2e_human')) });
    expect(r.code, r.stderr).toBe(0);
    const target = cluster.dsn('e2e_human');
    const esc = (t: string) => t.replaceAll('.', '\\.');
    expect(r.stdout).toMatch(new RegExp(`^Restored backup bj_0007 of db_orders into ${esc(target)} \\(new database\\) in \\d+\\.\\ds\\.$`, 'm'));
    // What an operator needs first: whose data from when, the largest tables, how to connect, what next.
    expect(r.stdout).toMatch(/^data as of: +\d{4}-\d\d-\d\dT[\d:]+Z \(\d+[smhd] ago\), when the backup's dump started: nothing written after that is in it$/m);
    expect(r.stdout).toMatch(/^largest tables: +public\.orders ~5,000 rows, public\.customers ~1,000 rows$/m);
    // Built by the one builder of printed commands (cli-contract 7.16 c): a plain URI needs no quotes.
    expect(r.stdout).toMatch(new RegExp(`^connect: +psql ${esc(target)}$`, 'm'));
    expect(r.stdout).toMatch(/^next: +check the data, then point the application at "e2e_human" \(or rename it into place\)$/m);
    // The result last (cli-contract 4, v4): the figures and the service's view above it, the psql line closing it.
    expect(r.stdout.indexOf('sha-256')).toBeLessThan(r.stdout.indexOf('Restored backup'));
    expect(r.stdout.indexOf("service's view")).toBeLessThan(r.stdout.indexOf('Restored backup'));
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^connect: +psql postgresql:/);
    // The figures: target, mode, the artifact verified (its checksum once), durations.
    expect(r.stdout).toMatch(new RegExp(`^target: +${target.replaceAll('.', '\\.')}$`, 'm'));
    expect(r.stdout).toMatch(/^mode: +new database$/m);
    expect(r.stdout).toMatch(/^artifact: +92\.9 KiB \(95129 bytes\), size and SHA-256 verified$/m);
    expect(r.stdout).toMatch(new RegExp(`^sha-256: +${ARTIFACT_SHA}$`, 'm'));
    expect(r.stdout.split(ARTIFACT_SHA)).toHaveLength(2);
    expect(r.stdout).toMatch(
      /^durations: +preflight \d+\.\ds, createRestore \d+\.\ds, download \d+\.\ds, verify \d+\.\ds, restore \d+\.\ds, analyze \d+\.\ds, check \d+\.\ds$/m,
    );
    expect(r.stdout).toMatch(/^objects checked: +2 tables, 1 view, 3 sequences, 2 indexes$/m);
    expect(r.stdout).toMatch(/^pg_restore exit code: +0$/m);
    // The service's view in one line, its "no" flags explained beside them (cli-contract 4, v4 and issue 34).
    expect(r.stdout).toMatch(
      /^service's view: +queued, verified restore no \(the service has not verified this restore; the result below is the local proof\)$/m,
    );
    expect(r.stdout).not.toMatch(/^\s*state: +queued$/m);
    expect(r.stderr).toMatch(/^Restore job [0-9a-f-]{36} created \(new_database\)\.$/m);
    expect(r.stderr).toMatch(new RegExp(`^✓ Verified 92\\.9 KiB \\(95129 bytes\\), SHA-256 ${ARTIFACT_SHA} \\(\\d+\\.\\ds\\)$`, 'm'));
    expect(r.stderr).toContain('Created database "e2e_human" (TEMPLATE template0, UTF8, libc C).');
    expect(
      r.stderr.split('\n').filter((l) => /warning/i.test(l)),
      'the only warning: a superuser target (cli-contract 7.14)',
    ).toEqual([expect.stringMatching(/^warning: The role "postgres" is a superuser on /)]);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(NO_COORDINATES);
    expect((await describeDatabase(cluster, 'e2e_human')).tables).toEqual(SEED_TABLES);
  });

  it("db_billing's backup bj_0005 restores its own archive (billing.pgdump): verified, every object present, materialized view filled", async () => {
    const r = await svc(['restore', 'create', '--backup', 'bj_0005', '--json'], { env: env(withPassword('e2e_billing')) });
    expect(r.code, r.stderr).toBe(0);
    const { execution } = JSON.parse(r.stdout);
    expect(execution).toMatchObject({
      verified: true,
      sha256: sb.artifacts.billing!.sha256,
      artifactBytes: sb.artifacts.billing!.sizeBytes,
      pgRestoreExitCode: 0,
    });
    expect(execution.sha256).not.toBe(ARTIFACT_SHA);
    const restored = await describeDatabase(cluster, 'e2e_billing');
    expect(restored.tables).toEqual({ accounts: 400, invoices: 2400, payments: 1800, plans: 4 });
    expect(restored.views).toEqual(['account_balances']);
    expect(await cluster.psql('SELECT count(*) FROM account_balances', 'e2e_billing')).toBe('400');
  });

  it('6: the same --idempotency-key with another target is a conflict, and nothing is created', async () => {
    const r = await svc(['restore', 'create', '--backup', 'bj_0007', '--idempotency-key', key], { env: env(withPassword('e2e_other')) });
    expect(r).toMatchObject({ code: 6, stdout: '' });
    expect(r.stderr).toMatch(/^error: This idempotency key was already used with a different request body\.$/m);
    expect(r.stderr).toContain('(HTTP 409)');
    expect(await databaseExists('e2e_other')).toBe(false);
  });

  it('7: a new-database restore never writes into an existing, non-empty database (a precondition, cli-contract 5)', async () => {
    const r = await svc(['restore', 'create', '--backup', 'bj_0007'], { env: env(withPassword('e2e_human')) });
    expect(r).toMatchObject({ code: 7, stdout: '' });
    expect(r.stderr).toContain('The target database "e2e_human" already exists and is not empty');
  });

  it('7: restoring a backup that is not completed: getBackup says so, and no restore job is created', async () => {
    const restoresBefore = sb.requests.filter((e) => e.path === '/api/v1/restores').length;
    const r = await svc(['restore', 'create', '--backup', 'bj_0008'], { env: env(withPassword('e2e_running')) });
    expect(r).toMatchObject({ code: 7, stdout: '' });
    expect(r.stderr).toMatch(/^error: Backup job bj_0008 is running, not completed\. Nothing was created\.$/m);
    expect(r.stderr).toMatch(/^ {2}Pick a completed backup: svc backups list db_orders$/m);
    expect(sb.requests.filter((e) => e.path === '/api/v1/restores').length).toBe(restoresBefore);
    expect(await databaseExists('e2e_running')).toBe(false);
  });

  // Missing as well under Node 22+, whose compile cache (turned on by bin/svc) would create it.
  it.each([
    ['missing', 'e2e_tmpdir_missing', (dir: string) => join(dir, 'gone')],
    ['a regular file', 'e2e_tmpdir_file', (dir: string) => (writeFileSync(join(dir, 'file'), ''), join(dir, 'file'))],
  ])('2: a TMPDIR that is %s: the password file cannot be written, no restore job, nothing left behind', async (_what, db, tmp) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-e2e-tmpdir-'));
    try {
      const restoresBefore = sb.requests.filter((e) => e.path === '/api/v1/restores').length;
      const unusable = tmp(dir);
      const r = await svcChild(['restore', 'create', '--backup', 'bj_0007'], { env: env({ ...withPassword(db), TMPDIR: unusable }) });
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(
        new RegExp(`^error: Could not write the password file for the restore under ${unusable} \\(EN\\w+\\); nothing was restored\\.$`, 'm'),
      );
      expect(r.stderr).toMatch(/^ {2}Set TMPDIR to a writable directory with free space, then run the restore again\.$/m);
      expect(r.stderr).not.toContain('This is a bug');
      expect(sb.requests.filter((e) => e.path === '/api/v1/restores').length).toBe(restoresBefore);
      expect(await databaseExists(db)).toBe(false);
      expect(existsSync(unusable) && !statSync(unusable).isFile()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the incident path without copying ids: recovery candidate prints the next command, and that command restores', async () => {
    const incident = new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const candidate = await svc(['recovery', 'candidate', 'db_orders', '--incident-time', incident], { env: env(withPassword('e2e_incident')) });
    expect(candidate.code, candidate.stderr).toBe(0);
    // The line after "Next: ...:" is the command alone, as a person pastes it.
    const next = /^Next: .*:\n {2}(svc restore create .*)$/m.exec(candidate.stderr)?.[1];
    expect(next).toBe('svc restore create --window rw_0003');
    const r = await svc([...next!.split(' ').slice(1), '--json'], { env: env(withPassword('e2e_incident')) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^Using bj_0007, started \S+, completed \S+ \(\d+[smhd] ago, age from its start\): the baseline backup of recovery window rw_0003\.$/m,
    );
    const doc = JSON.parse(r.stdout);
    expect(doc.backupSelection).toEqual({
      rule: 'window',
      windowId: 'rw_0003',
      backupJobId: 'bj_0007',
      startedAt: expect.stringMatching(/Z$/),
      completedAt: expect.stringMatching(/Z$/),
    });
    expect(doc.execution.receipt.backupSelection).toEqual(doc.backupSelection);
    expect((await describeDatabase(cluster, 'e2e_incident')).tables).toEqual(SEED_TABLES);
  });

  it('--database --latest and --before: the newest completed backup, and none before the first is exit 7 naming database and time', async () => {
    const latest = await svc(['restore', 'create', '--database', 'db_orders', '--latest', '--json'], { env: env(withPassword('e2e_latest')) });
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stderr).toMatch(
      /^Using bj_0007, started \S+, completed \S+ \(\d+[smhd] ago, age from its start\): the newest completed backup of orders-prod \(db_orders\)\.$/m,
    );
    expect(JSON.parse(latest.stdout).backupSelection).toMatchObject({ rule: 'latest', backupJobId: 'bj_0007' });

    const before = '2020-01-01T00:00:00Z';
    const none = await svc(['restore', 'create', '--database', 'db_orders', '--before', before], { env: env(withPassword('e2e_before')) });
    expect(none.code).toBe(7);
    expect(none.stderr).toContain(`No completed backup with an artifact of orders-prod (db_orders) at or before ${before}: there is nothing to restore.`);
    expect(none.stderr).toContain('svc backups list db_orders');
    expect(await databaseExists('e2e_before')).toBe(false);
  });

  it('restore create --json: {restoreJob, execution, backupSelection, backupStartedAt, backupCompletedAt}, never the lock token or the presigned URL', async () => {
    const r = await svc(['restore', 'create', '--backup', 'bj_0007', '--json'], { env: env(withPassword('e2e_json')) });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc).sort()).toEqual(['backupCompletedAt', 'backupSelection', 'backupStartedAt', 'execution', 'restoreJob']);
    expect(doc.backupSelection).toEqual({
      rule: 'id',
      backupJobId: 'bj_0007',
      startedAt: expect.stringMatching(/Z$/),
      completedAt: expect.stringMatching(/Z$/),
    });
    expect([doc.backupStartedAt, doc.backupCompletedAt]).toEqual([doc.backupSelection.startedAt, doc.backupSelection.completedAt]);
    expect(doc.execution).toEqual({
      artifactBytes: 95129,
      sha256: ARTIFACT_SHA,
      verified: true,
      pgRestoreExitCode: 0,
      durationMs: expect.any(Number),
      receipt: expect.objectContaining({
        backupJobId: 'bj_0007',
        outcome: 'restored',
        objects: { TABLE: 2, VIEW: 1, 'MATERIALIZED VIEW': 0, SEQUENCE: 3, INDEX: 2 },
      }),
      // The target's role is the cluster's superuser (cli-contract 7.14).
      warnings: [expect.stringContaining('will run with superuser rights on that server')],
    });
    expect(doc.restoreJob).toMatchObject({ databaseId: 'db_orders', mode: 'new_database', state: 'queued' });
    expect(`${r.stdout}${r.stderr}`).not.toMatch(NO_COORDINATES);
    expect((await describeDatabase(cluster, 'e2e_json')).tables).toEqual(SEED_TABLES);
  });

  it('restore run (human, password in PGPASSWORD): the createRestore body on stdin, restored', async () => {
    const body = await createRestoreBody('e2e_run');
    const r = await svc(['restore', 'run', '--target', cluster.dsn('e2e_run')], { env: env({ PGPASSWORD: password }), input: JSON.stringify(body) });
    expect(r.code, r.stderr).toBe(0);
    // restore run is handed a job, not a backup: no backup id, no completion time to show.
    expect(r.stdout).toContain(`Restored the backup of db_orders into ${cluster.dsn('e2e_run')} (new database)`);
    expect(r.stdout).not.toContain('data as of');
    expect(r.stdout).toMatch(new RegExp(`^restore job: +${body.restoreJob.id}$`, 'm'));
    expect(`${r.stdout}${r.stderr}`).not.toMatch(NO_COORDINATES);
    expect((await describeDatabase(cluster, 'e2e_run')).tables).toEqual(SEED_TABLES);
  });

  it('10: restore run --json with a tampered expectedSha256 runs nothing (a password in --target is warned about, never echoed)', async () => {
    const body = await createRestoreBody('e2e_tampered');
    body.execution.expectedSha256 = 'f'.repeat(64);
    const r = await svc(['restore', 'run', '--target', cluster.dsn('e2e_tampered', true), '--json'], { env: env(), input: JSON.stringify(body) });
    expect(r).toMatchObject({ code: 10, stdout: '' });
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^warning: The password in --target is visible to other local users in the process list/);
    const error = errorEnvelope(lines.at(-1)!);
    expect(error).toMatchObject({ code: 'artifact_integrity', status: null });
    expect(error.message).toContain(ARTIFACT_SHA);
    expect(await databaseExists('e2e_tampered')).toBe(false);
  });
});
