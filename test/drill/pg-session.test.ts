/**
 * The drill's own connection (src/drill/pg-session.ts) against a real PostgreSQL: what a SQL check
 * returns reaches svc already cut (BoundedMessages sits under node-postgres's parser), only the
 * first rows are produced, and one text of several statements is refused by the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstRows, withSession, type SessionConfig } from '../../src/drill/pg-session.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/pg-session.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('the drill\'s connection for SQL checks (real PostgreSQL)', { timeout: 60_000 }, () => {
  let cluster: PgCluster;
  let config: SessionConfig;
  const never = new AbortController().signal;
  const run = (sql: string, limit = 6) => withSession(config, never, (client) => firstRows(client, sql, limit));

  beforeAll(async () => {
    cluster = await startCluster();
    config = { host: cluster.host, port: cluster.port, user: cluster.user, password: cluster.password, database: 'postgres', ssl: false, plainFallback: false };
  }, 120_000);
  afterAll(() => cluster?.stop());

  it('a 120 MB value arrives as its first 804 bytes: node-postgres never holds the rest', async () => {
    const { columns, rows } = await run("SELECT repeat('x', 120 * 1024 * 1024) AS v, 'short' AS s, NULL AS n");
    expect(columns).toEqual(['v', 's', 'n']);
    expect(rows).toEqual([['x'.repeat(804), 'short', null]]);
  });

  it('a billion rows: the first ones only, at once (the server stops at the portal\'s row limit)', async () => {
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
    await expect(run('SELECT 1; CREATE TABLE made_by_a_check (id int)')).rejects.toMatchObject({ message: 'cannot insert multiple commands into a prepared statement' });
    expect(await cluster.psql("SELECT count(*) FROM pg_class WHERE relname = 'made_by_a_check'")).toBe('0');
  });

  it('a signal ends the connection and the wait', async () => {
    const abort = new AbortController();
    const started = performance.now();
    const waiting = withSession(config, abort.signal, (client) => firstRows(client, 'SELECT pg_sleep(30)', 6));
    setTimeout(() => abort.abort(), 300);
    await expect(waiting).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
