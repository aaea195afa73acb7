/**
 * The drill's own connection (src/drill/pg-session.ts) against a real PostgreSQL: what a SQL check
 * returns reaches svc already cut (BoundedMessages sits under node-postgres's parser), only the
 * first rows are produced, and one text of several statements is refused by the server.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUser } from '../../src/drill/os-user.js';
import { firstRows, sessionConfig, withSession, type SessionConfig } from '../../src/drill/pg-session.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/pg-session.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)("the drill's connection for SQL checks (real PostgreSQL)", { timeout: 60_000 }, () => {
  let cluster: PgCluster;
  let config: SessionConfig;
  const never = new AbortController().signal;
  const run = (sql: string, limit = 6) => withSession(config, never, (client) => firstRows(client, sql, limit));

  beforeAll(async () => {
    cluster = await workerCluster();
    config = { host: cluster.host, port: cluster.port, user: cluster.user, password: cluster.password, database: 'postgres', ssl: false, plainFallback: false };
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
