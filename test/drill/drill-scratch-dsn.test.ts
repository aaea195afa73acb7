/**
 * `svc restore drill --scratch <dsn>` (cli-contract 9): an operator's scratch server, here a
 * throwaway cluster of test/support/pg-cluster.ts with a role that may create databases. svc creates
 * its own svc_drill_* databases there and drops them again; it never stops the server or touches
 * other databases. A role without CREATEDB, or a server it cannot reach, is exit 11 before any
 * createRestore, naming the redacted DSN and never the password. Skips without a PostgreSQL server,
 * except under CI.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, registerSecret } from '../e2e/helpers.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { SERVER_BINDIR_ENV } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-scratch-dsn.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('svc restore drill --scratch <dsn>', { timeout: 120_000 }, () => {
  const h = new DrillE2e();
  let cluster: PgCluster;
  // Characters a URI must percent-encode.
  const password = `drill:p@ss/${randomBytes(6).toString('hex')}`;
  const dsn = (user: string, port = cluster.port) => `postgresql://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const drillDatabases = async () =>
    (await cluster.psql("SELECT coalesce(string_agg(datname, ',' ORDER BY datname), '') FROM pg_database WHERE datname LIKE 'svc\\_drill\\_%'"))
      .split(',')
      .filter(Boolean);
  /** What the server logged of the DDL statements: the scratch databases svc created and dropped. */
  const serverLog = () => readFileSync(join(dirname(cluster.dataDir), 'server.log'), 'utf8');

  beforeAll(async () => {
    registerSecret(password, 'dsnPasswords');
    const [started, pg] = await Promise.allSettled([
      h.start(),
      startCluster({ settings: { log_statement: 'ddl' }, serverBinDir: process.env[SERVER_BINDIR_ENV] || undefined }),
    ]);
    if (pg.status === 'fulfilled') cluster = pg.value;
    for (const r of [started, pg]) if (r.status === 'rejected') throw r.reason;
    registerSecret(cluster.password, 'dsnPasswords');
    const literal = `'${password.replaceAll("'", "''")}'`;
    await cluster.psql(
      `CREATE ROLE drill_ops LOGIN CREATEDB PASSWORD ${literal}; CREATE ROLE no_createdb LOGIN PASSWORD ${literal}; CREATE ROLE drill_admin LOGIN CREATEDB CREATEROLE PASSWORD ${literal}; CREATE DATABASE operators_own;`,
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled([cluster?.stop(), h.stop()]);
  });

  it("drills db_orders on the operator's server: a svc_drill_* database is created, restored, checked and dropped; the server and its other databases stay", async () => {
    const before = await drillDatabases();
    const r = await h.drill(['db_orders', '--scratch', dsn('drill_ops'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const d = r.doc!;
    expect(d).toMatchObject({ scratch: 'dsn', passed: 1, failed: 0 });
    expect(await cluster.psql('SHOW server_version')).toBe(d.serverVersion);
    const db = d.databases[0]!;
    expect(db.result).toBe('passed');
    const target = new RegExp(`^postgresql://drill_ops@127\\.0\\.0\\.1:${cluster.port}/(svc_drill_db_orders_[0-9a-f]{8})$`).exec(db.receipt!.targetRedactedDsn);
    expect(target, db.receipt!.targetRedactedDsn).not.toBeNull();
    const name = target![1]!;
    // Created, restored into, and dropped again: none is left.
    const log = serverLog();
    expect(log).toMatch(new RegExp(`CREATE DATABASE "?${name}"?`));
    expect(log).toMatch(new RegExp(`DROP DATABASE (IF EXISTS )?"?${name}"?`));
    expect(before).toEqual([]);
    expect(await drillDatabases()).toEqual([]);
    // The operator's server still runs, with its own database.
    expect(await cluster.psql("SELECT count(*) FROM pg_database WHERE datname = 'operators_own'")).toBe('1');
    // A password inside --scratch works, with the warning that argv shows it.
    expect(r.stderr).toMatch(/^warning: The password in --scratch is visible to other local users in the process list; prefer PGPASSWORD or ~\/\.pgpass\.$/m);
  });

  it('a role that may create roles: each database is restored as a throwaway svc_drill_owner_* role, dropped afterwards with the database; the server never sees its password', async () => {
    const roles = () => cluster.psql("SELECT coalesce(string_agg(rolname, ',' ORDER BY rolname), '') FROM pg_roles WHERE rolname LIKE 'svc\\_drill\\_%'");
    const r = await h.drill(['db_orders', '--scratch', dsn('drill_admin'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'Scratch server: each database is restored as a throwaway owner role (no superuser, no CREATEDB, no CREATEROLE) that "drill_admin" creates and drops again.',
    );
    const log = serverLog();
    const owner = /CREATE ROLE "(svc_drill_owner_[0-9a-f]{8})" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE/.exec(log)?.[1];
    expect(owner, log.slice(-4000)).toBeDefined();
    // Only a SCRAM verifier reaches the server (and its log), never the password itself.
    expect(log).toMatch(new RegExp(`CREATE ROLE "${owner}" .* PASSWORD 'SCRAM-SHA-256\\$4096:`));
    expect(log).toMatch(new RegExp(`CREATE DATABASE "?svc_drill_db_orders_[0-9a-f]{8}"? OWNER "${owner}"`));
    expect(log).toMatch(new RegExp(`DROP ROLE IF EXISTS "${owner}"`));
    expect(await roles()).toBe('');
    expect(await drillDatabases()).toEqual([]);
  });

  it('a role that may not create roles: the drill restores as that role and says so, and whether it is a superuser', async () => {
    const r = await h.drill(['db_orders', '--scratch', dsn('drill_ops'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('"drill_ops" may not create roles here, so the drill restores as "drill_ops" (not a superuser)');
  });

  it('the password from PGPASSWORD instead: the same drill, no warning', async () => {
    const r = await h.drill(['db_orders', '--scratch', `postgresql://drill_ops@127.0.0.1:${cluster.port}/postgres`, '--json'], {
      env: { PGPASSWORD: password },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc!.scratch).toBe('dsn');
    expect(r.stderr).not.toMatch(/visible to other/i);
    expect(await drillDatabases()).toEqual([]);
  });

  it('--dry-run with a scratch DSN checks the server but creates nothing on it', async () => {
    const restores = h.restoresCreated();
    const r = await h.drill(['db_orders', '--scratch', dsn('drill_ops'), '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc).toMatchObject({ scratch: 'dsn', isolation: null, serverVersion: await cluster.psql('SHOW server_version') });
    expect(r.doc!.databases[0]).toMatchObject({ result: 'planned', backupJobId: 'bj_0007' });
    expect(h.restoresCreated()).toBe(restores);
    expect(await drillDatabases()).toEqual([]);
  });

  it('a role without CREATEDB is exit 11 before any createRestore, naming the role and the redacted DSN', async () => {
    const restores = h.restoresCreated();
    const r = await h.drill(['db_orders', '--scratch', dsn('no_createdb')]);
    expect(r.code).toBe(11);
    expect(r.stdout).toBe('');
    const redacted = `postgresql://no_createdb@127.0.0.1:${cluster.port}/postgres`;
    expect(r.stderr).toContain(`error: The role "no_createdb" may not create databases on ${redacted}: a drill creates its own svc_drill_* databases there.`);
    expect(r.stderr).toContain('ALTER ROLE "no_createdb" CREATEDB; or use --scratch auto.');
    expect(h.restoresCreated()).toBe(restores);
    expect(await drillDatabases()).toEqual([]);
  });

  it('an unreachable scratch server is exit 9 (a network failure, cli-contract 5) before any createRestore, naming the redacted DSN, never the password', async () => {
    const restores = h.restoresCreated();
    const port = await closedPort();
    const r = await h.drill(['db_orders', '--scratch', dsn('drill_ops', port)]);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(`error: Cannot connect to the scratch server postgresql://drill_ops@127.0.0.1:${port}/postgres: `);
    expect(r.stderr).toContain('Check --scratch: host, port, user and password (or PGPASSWORD / ~/.pgpass)');
    expect(h.restoresCreated()).toBe(restores);
  });

  it('a wrong password is exit 11 too, and the one given is not shown', async () => {
    const r = await h.drill(['db_orders', '--scratch', `postgresql://drill_ops:not-the-password-7f3a@127.0.0.1:${cluster.port}/postgres`]);
    expect(r.code).toBe(11);
    expect(r.stderr).toContain(`Cannot connect to the scratch server postgresql://drill_ops@127.0.0.1:${cluster.port}/postgres: `);
    expect(`${r.stdout}${r.stderr}`).not.toContain('not-the-password-7f3a');
  });

  /** A --check file in a fresh directory. */
  const checkFile = (text: string) => {
    const file = join(h.workDir(), 'checks.sql');
    writeFileSync(file, text);
    return file;
  };
  const WHO = [
    '-- check: who_runs_it',
    'SELECT current_user AS who, r.rolsuper AS super, r.rolcreaterole AS createrole,',
    "  (SELECT string_agg(g.rolname, ',') FROM pg_auth_members am JOIN pg_roles g ON g.oid = am.roleid WHERE am.member = r.oid) AS member_of,",
    "  current_setting('transaction_read_only') AS ro, current_setting('statement_timeout') AS timeout",
    'FROM pg_roles r WHERE r.rolname = current_user',
  ].join('\n');
  const settingsOf = (role: string) =>
    cluster.psql(`SELECT count(*) FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname = '${role}'`);

  it('a role that may not create roles runs the checks itself, read-only with the 60 s timeout, said once; a check that tries ALTER ROLE ... SET work_mem leaves nothing on the server', async () => {
    const file = checkFile(
      [
        '-- check: alters_the_role',
        "SELECT 1 WHERE false) s) q HAVING false; SET default_transaction_read_only = off; COMMIT; ALTER ROLE drill_ops SET work_mem = '77MB'; SELECT '[]' FROM (SELECT 1 FROM (SELECT 1",
        WHO,
        '',
      ].join('\n'),
    );
    const r = await h.drill(['db_orders', '--scratch', dsn('drill_ops'), '--check', file, '--json']);
    expect(await settingsOf('drill_ops')).toBe('0');
    expect(r.code, r.stderr).toBe(13);
    const checks = r.doc!.databases[0]!.checks;
    expect(checks.find((c) => c.name === 'check:alters_the_role')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^the query failed: ERROR: +syntax error at or near "\)"/),
    });
    expect(checks.find((c) => c.name === 'check:who_runs_it')).toMatchObject({
      status: 'failed',
      detail: 'returned 1 row; they are: who=drill_ops, super=false, createrole=false, member_of=null, ro=on, timeout=1min',
    });
    const said = r.stderr.match(
      /The role "drill_ops" may not create roles on postgresql:\/\/drill_ops@127\.0\.0\.1:\d+\/postgres: the SQL checks run as that role, in read-only transactions with a 60 s statement timeout/g,
    );
    expect(said, r.stderr).toHaveLength(1);
    expect(await drillDatabases()).toEqual([]);
  });

  it('a role that may create roles makes a throwaway check role that can only read, and drops it after the run; its password reaches no server log', async () => {
    const roles = () => cluster.psql("SELECT coalesce(string_agg(rolname, ','), '') FROM pg_roles WHERE rolname LIKE 'svc\\_drill\\_check\\_%'");
    const file = checkFile(
      `${WHO}\n-- check: alters_the_role\nSELECT 1 WHERE false; ALTER ROLE drill_admin SET work_mem = '77MB'\n-- check: reads_the_data\nSELECT count(*) AS n FROM orders HAVING count(*) <> 5000\n`,
    );
    const r = await h.drill(['db_orders', '--scratch', dsn('drill_admin'), '--check', file, '--json']);
    expect(r.code, r.stderr).toBe(13);
    const checks = r.doc!.databases[0]!.checks;
    // From PostgreSQL 16 a CREATEROLE role grants only roles it administers: then SELECT and USAGE in the scratch database instead.
    const memberOf = cluster.serverMajor >= 16 ? 'null' : 'pg_read_all_data';
    const who = new RegExp(
      `^returned 1 row; they are: who=(svc_drill_check_[0-9a-f]{8}), super=false, createrole=false, member_of=${memberOf}, ro=on, timeout=1min$`,
    ).exec(checks.find((c) => c.name === 'check:who_runs_it')!.detail!);
    expect(who, checks.find((c) => c.name === 'check:who_runs_it')!.detail).not.toBeNull();
    expect(checks.find((c) => c.name === 'check:alters_the_role')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/cannot insert multiple commands into a prepared statement/),
    });
    expect(checks.find((c) => c.name === 'check:reads_the_data')).toMatchObject({ status: 'passed' });
    expect(await settingsOf('drill_admin')).toBe('0');
    expect(await roles()).toBe('');
    const log = serverLog();
    expect(log).toMatch(new RegExp(`CREATE ROLE "${who![1]}" .*PASSWORD 'SCRAM-SHA-256\\$4096:`));
    expect(log).toMatch(new RegExp(`DROP ROLE IF EXISTS "${who![1]}"`));
    expect(r.stderr).not.toMatch(/may not create roles/);
    expect(await drillDatabases()).toEqual([]);
  });
});
