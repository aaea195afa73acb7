import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clientEnv, PgClusterError, pgSkipReason, type PgCluster } from './pg-cluster.js';
import { psqlStatements } from './pg-query.js';
import { workerCluster } from './worker-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/support/pg-query.test.ts skipped: ${skip}`);

describe('psqlStatements: the statements psql would send one by one', () => {
  test.each([
    ['SELECT 1', ['SELECT 1']],
    ['SELECT 1;\n SELECT 2 ;\n\n;', ['SELECT 1', 'SELECT 2']],
    ["SELECT 'a;b', \"c;d\", E'\\';', $$;$$, $t$ $$; $t$; SELECT 2", ["SELECT 'a;b', \"c;d\", E'\\';', $$;$$, $t$ $$; $t$", 'SELECT 2']],
    ["SELECT 'it''s;' -- a; comment\n; /* a; /* nested; */ one */ SELECT 2", ["SELECT 'it''s;' -- a; comment", '/* a; /* nested; */ one */ SELECT 2']],
    ['CREATE RULE r AS ON INSERT TO t DO ALSO (NOTIFY a; NOTIFY b); SELECT 1', ['CREATE RULE r AS ON INSERT TO t DO ALSO (NOTIFY a; NOTIFY b)', 'SELECT 1']],
    ["SELECT 1::int, '12:30'::time, a[1:2] FROM t;\n-- trailing comment\n", ["SELECT 1::int, '12:30'::time, a[1:2] FROM t"]],
    ["SELECT 'svc\\_drill\\_%', E'\\n'", ["SELECT 'svc\\_drill\\_%', E'\\n'"]],
  ])('%j', (sql, statements) => {
    expect(psqlStatements(sql)).toEqual(statements);
  });

  test.each([
    "SELECT format('DROP DATABASE %I', datname) FROM pg_database \\gexec",
    "SELECT :'db'",
    'SELECT :name',
    'COPY t FROM stdin;\n1\n\\.\n',
    'CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END',
    "SELECT 'open",
    'SELECT 1 /* open',
  ])('left to psql: %j', (sql) => {
    expect(psqlStatements(sql)).toBeUndefined();
  });
});

describe.skipIf(skip)('cluster.psql() in process answers as psql -A -t did', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await workerCluster();
  });
  afterAll(() => cluster?.stop());

  /** What the psql of before answered: stdout trimmed, or its stderr when it failed. */
  const realPsql = async (sql: string, database = 'postgres') => {
    const r = await execa(
      join(cluster.binDir, 'psql'),
      ['-X', '-q', '-w', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', database, '-f', '-'],
      { input: sql, env: clientEnv(cluster), extendEnv: false, reject: false },
    );
    return r.exitCode === 0 ? String(r.stdout).trim() : `failed: ${String(r.stderr)}`;
  };

  test.each([
    "SELECT true, false, NULL, '', 'x|y', E'two\\nlines', 'ünï'",
    "SELECT ARRAY[1,2], '{\"a\": [1, null]}'::jsonb, '\\xdeadbeef'::bytea, 1.50::numeric, 1e100::float8, '1 day 02:03'::interval",
    "SELECT '2024-02-29 13:14:15.5+02'::timestamptz, '2024-02-29'::date, 'ab'::char(4), '(1,2)'::point",
    'SELECT g, g * 2 FROM generate_series(1, 3) g',
    'SELECT 1 WHERE false; SELECT NULL; SELECT 2; SELECT 3 WHERE false',
    "SET DateStyle = 'SQL, DMY'; SELECT '2024-02-29 01:02:03'::timestamp; SHOW DateStyle",
    'CREATE TEMP TABLE t (a int, b text); INSERT INTO t VALUES (1, NULL), (2, $$;$$) RETURNING *; SELECT count(*) FROM t',
    'BEGIN; CREATE TEMP TABLE u (a int); INSERT INTO u VALUES (1); COMMIT; SELECT * FROM u',
  ])('%s', async (sql) => {
    expect(psqlStatements(sql)).toBeDefined();
    expect(await cluster.psql(sql)).toBe(await realPsql(sql));
  });

  test('statements that cannot run in a transaction block run as under psql, each on its own', async () => {
    expect(
      await cluster.psql(
        'CREATE DATABASE pgq_one; CREATE DATABASE pgq_two TEMPLATE pgq_one; VACUUM pg_class; SELECT count(*) FROM pg_database WHERE datname LIKE $$pgq\\_%$$',
      ),
    ).toBe('2');
    expect(await cluster.psql('DROP DATABASE pgq_two; DROP DATABASE pgq_one; SELECT count(*) FROM pg_database WHERE datname LIKE $$pgq\\_%$$')).toBe('0');
  });

  test('a failing statement stops the script; those before it stay done, as with ON_ERROR_STOP', async () => {
    const err = await cluster.psql('CREATE TABLE pgq_done (a int); SELECT no_such_column; CREATE TABLE pgq_never (a int)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PgClusterError);
    expect((err as Error).message).toMatch(/^psql on database "postgres" \(127\.0\.0\.1:\d+\) failed: ERROR: {2}column "no_such_column" does not exist/);
    expect(await cluster.psql("SELECT string_agg(relname, ',') FROM pg_class WHERE relname LIKE 'pgq\\_%'")).toBe('pgq_done');
  });

  test('a failure names the database and the server error, never the password', async () => {
    const err = await cluster.psql('SELECT 1', 'no_such_db').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PgClusterError);
    expect((err as Error).message).toMatch(/psql on database "no_such_db" \(127\.0\.0\.1:\d+\) failed: FATAL: {2}database "no_such_db" does not exist/);
    const bad = await cluster.psql(`SELECT ${"'"}${cluster.password}' + 1`).catch((e: unknown) => e);
    expect((bad as Error).message).toMatch(/invalid input syntax/);
    expect((bad as Error).message).not.toContain(cluster.password);
  });

  test('a script with a meta-command still runs with psql', async () => {
    expect(await cluster.psql("SELECT 'SELECT 40 + 2' \\gexec")).toBe('42');
  });
});
