/**
 * svc's own connection (src/pg/session.ts) against a real PostgreSQL: what a SQL check
 * returns reaches svc already cut (BoundedMessages sits under node-postgres's parser), only the
 * first rows are produced, and one text of several statements is refused by the server.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUser } from '../../src/drill/os-user.js';
import { PgError } from '../../src/pg/errors.js';
import { quoteIdent, quoteLiteral } from '../../src/pg/quote.js';
import { onEnv } from '../../src/pg/target-session.js';
import { isNetworkFailure } from '../../src/restore/target/target-database.js';
import { SecretScrubber } from '../../src/secrets.js';
import { CHECK_BOUNDS, firstRows, sessionConfig, withSession, type SessionConfig } from '../../src/pg/session.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/pg/session.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)("svc's own connection (real PostgreSQL)", { timeout: 60_000 }, () => {
  let cluster: PgCluster;
  let config: SessionConfig;
  const never = new AbortController().signal;
  const run = (sql: string, limit = 6) => withSession(config, never, (client) => firstRows(client, sql, limit));

  beforeAll(async () => {
    // A cluster of its own: its cases leave sessions mid-query and cut connections, which a worker's shared cluster would have to wait out.
    cluster = await startCluster();
    config = {
      host: cluster.host,
      port: cluster.port,
      user: cluster.user,
      password: cluster.password,
      database: 'postgres',
      ssl: false,
      plainFallback: false,
      bounds: CHECK_BOUNDS,
    };
  }, 120_000);
  afterAll(() => cluster?.stop());

  it('a 120 MB value arrives as its first 804 bytes: node-postgres never holds the rest', async () => {
    const { columns, rows } = await run("SELECT repeat('x', 120 * 1024 * 1024) AS v, 'short' AS s, NULL AS n");
    expect(columns).toEqual(['v', 's', 'n']);
    expect(rows).toEqual([['x'.repeat(804), 'short', null]]);
  });

  it("a billion rows: the first ones only, at once (the server stops at the portal's row limit)", async () => {
    const started = performance.now();
    // In the select list the set-returning function streams (in FROM, the server would build all of it first).
    const { rows } = await run('SELECT generate_series(1, 1000000000) AS g');
    expect(rows).toEqual([['1'], ['2'], ['3'], ['4'], ['5'], ['6']]);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('an error that quotes a huge value comes back with its text cut', async () => {
    const err = (await run("SELECT repeat('y', 10 * 1024 * 1024)::int").then(
      () => ({ message: 'no error', code: '' }),
      (e: unknown) => e,
    )) as { message: string; code: string };
    expect(err).toMatchObject({ code: '22P02' });
    expect(err.message).toMatch(/^invalid input syntax for type integer: "y+$/);
    expect(Buffer.byteLength(err.message)).toBe(2048);
  });

  it('several statements in one text are refused by the server; none of them runs', async () => {
    await expect(run('SELECT 1; CREATE TABLE made_by_a_check (id int)')).rejects.toMatchObject({
      message: 'cannot insert multiple commands into a prepared statement',
    });
    expect(await cluster.psql("SELECT count(*) FROM pg_class WHERE relname = 'made_by_a_check'")).toBe('0');
  });

  it('over TLS (sslmode=require, and the default prefer) the bound holds as well: it sits under the TLS stream', async () => {
    // A self-signed certificate for a second cluster; its key readable by the server's user only.
    const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    chmodSync(dir, 0o755);
    let tls: PgCluster | undefined;
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          '/CN=localhost',
          '-days',
          '1',
          '-keyout',
          join(dir, 'server.key'),
          '-out',
          join(dir, 'server.crt'),
        ],
        { stdio: 'ignore' },
      );
      chmodSync(join(dir, 'server.key'), 0o600);
      const user = serverUser();
      if (user) for (const f of ['server.key', 'server.crt']) chownSync(join(dir, f), user.uid, user.gid);
      tls = await startCluster({ settings: { ssl: 'on', ssl_cert_file: join(dir, 'server.crt'), ssl_key_file: join(dir, 'server.key') } });
      const target = { host: tls.host, port: tls.port, user: tls.user, database: 'postgres', password: tls.password, params: {} };
      for (const params of [{ PGSSLMODE: 'require' }, {}] as Array<Record<string, string>>) {
        const config = sessionConfig({ ...target, params }, {}, tls.user, tls.password, 'postgres');
        const seen = await withSession(config, never, async (client) => ({
          ssl: (await client.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).rows[0]?.ssl,
          value: (await firstRows(client, "SELECT repeat('x', 50 * 1024 * 1024) AS v", 6)).rows[0]![0],
        }));
        expect(seen).toEqual({ ssl: true, value: 'x'.repeat(804) });
      }
    } finally {
      await tls?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names and values quoted by src/pg/quote.ts come back from the server as they went in, standard_conforming_strings on or off', async () => {
    const values = ["it's", 'C:\\dir\\', "\\'; SELECT 1; --", 'caf\u00e9 \u00ff', '', 'new\nline'];
    for (const conforming of ['on', 'off']) {
      const seen = await withSession({ ...config, options: `-c standard_conforming_strings=${conforming}` }, never, async (client) => {
        const out: Array<[string, string]> = [];
        for (const v of values) {
          const { rows } = await client.query<{ v: string; n: string }>(
            `SELECT ${quoteLiteral(v)}::text AS v, ${v ? `'x'::text AS ${quoteIdent(v)}` : "'' AS n"}`,
          );
          out.push([rows[0]!.v, Object.keys(rows[0]!)[1]!]);
        }
        return out;
      });
      expect(seen).toEqual(values.map((v) => [v, v || 'n']));
    }
  });

  describe('a session on a restore target, as a libpq child given the same environment would connect', () => {
    const scrubber = new SecretScrubber();
    const passfiles: string[] = [];
    afterAll(() => {
      for (const dir of passfiles) rmSync(dir, { recursive: true, force: true });
    });
    const passfile = (mode: number, line: string) => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-pgpass-'));
      passfiles.push(dir);
      const file = join(dir, 'pgpass');
      writeFileSync(file, `# a comment\nelsewhere:*:*:*:wrong\n${line}\n`, { mode });
      chmodSync(file, mode);
      return file;
    };
    const env = (extra: Record<string, string>) => ({
      PGHOST: cluster.host,
      PGPORT: String(cluster.port),
      PGUSER: cluster.user,
      PGSSLMODE: 'disable',
      ...extra,
    });
    const whoAmI = (e: Record<string, string>) =>
      onEnv({ env: e, database: 'postgres', scrubber }, async (c) => (await c.query<{ u: string }>('SELECT current_user AS u')).rows[0]!.u);

    it('the password from PGPASSFILE (a 0600 file, `*` and an escaped colon as libpq reads them)', async () => {
      const escaped = cluster.password.replaceAll('\\', '\\\\').replaceAll(':', '\\:');
      expect(await whoAmI(env({ PGPASSFILE: passfile(0o600, `${cluster.host}:*:*:${cluster.user}:${escaped}`) }))).toBe(cluster.user);
    });

    it("a password file others can read is ignored, as libpq does: the login fails in libpq's words, naming no password", async () => {
      const err = await whoAmI(env({ PGPASSFILE: passfile(0o644, `*:*:*:*:${cluster.password}`) })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PgError);
      expect((err as PgError).reason).toBe(`connection to server at "${cluster.host}", port ${cluster.port} failed: fe_sendauth: no password supplied`);
    });

    it('a closed port reads as psql said it, which svc takes for a network failure (exit 9)', async () => {
      const err = await whoAmI({ ...env({}), PGPORT: '1', PGPASSWORD: 'x' }).catch((e: unknown) => e);
      expect((err as PgError).stderr).toBe(
        `connection to server at "${cluster.host}", port 1 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?`,
      );
      expect(isNetworkFailure(err as PgError)).toBe(true);
    });
  });

  describe('sslmode and SCRAM as libpq does them (what a user sees)', () => {
    const target = () => ({ host: cluster.host, port: cluster.port, user: cluster.user, database: 'postgres', password: cluster.password, params: {} });
    const connectWith = (params: Record<string, string>, password = cluster.password) =>
      withSession(
        sessionConfig({ ...target(), params }, {}, cluster.user, password, 'postgres'),
        never,
        async (client) => (await client.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).rows[0]!.ssl,
      );

    it("the server asks for SCRAM: the right password gets in, a wrong one is refused in the server's words", async () => {
      expect(await connectWith({ PGSSLMODE: 'disable' })).toBe(false);
      await expect(connectWith({ PGSSLMODE: 'disable' }, 'not-the-password')).rejects.toThrow(`password authentication failed for user "${cluster.user}"`);
    });

    it("sslmode=require against a server without TLS fails with libpq's message; prefer (the default) goes on without TLS", async () => {
      await expect(connectWith({ PGSSLMODE: 'require' })).rejects.toThrow(/^server does not support SSL, but SSL was required$/);
      expect(await connectWith({ PGSSLMODE: 'prefer' })).toBe(false);
      expect(await connectWith({})).toBe(false);
    });

    it('sslmode=verify-full without a root certificate is refused before connecting, naming the file libpq looks for', () => {
      expect(() =>
        sessionConfig(
          { ...target(), params: { PGSSLMODE: 'verify-full', PGSSLROOTCERT: '/nonexistent/root.crt' } },
          {},
          cluster.user,
          cluster.password,
          'postgres',
        ),
      ).toThrow('root certificate file "/nonexistent/root.crt" does not exist');
    });
  });

  it('a signal ends the wait, and the server stops the query too (it would otherwise sleep on with no client)', async () => {
    const abort = new AbortController();
    const started = performance.now();
    const waiting = withSession(config, abort.signal, (client) => firstRows(client, 'SELECT pg_sleep(30)', 6));
    const sleeping = () => cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'");
    while ((await sleeping()) !== '1') await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    await expect(waiting).rejects.toThrow();
    while ((await sleeping()) !== '0') {
      expect(performance.now() - started).toBeLessThan(10_000);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});
