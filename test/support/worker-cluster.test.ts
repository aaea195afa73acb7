import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PG_RUN_DIR_ENV, pgSkipReason } from './pg-cluster.js';
import { workerCluster } from './worker-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/support/worker-cluster.test.ts skipped: ${skip}`);

describe.skipIf(skip)("the worker's PostgreSQL cluster", () => {
  test('runs under the run dir of the globalSetup', () => {
    expect(process.env[PG_RUN_DIR_ENV]).toBeTruthy();
    expect(process.env.VITEST_POOL_ID).toBeTruthy();
  });

  test('the next file of the slot gets the same server with its own password, and none of what the last one made', async () => {
    const first = await workerCluster({ password: 'first-file-pw' });
    let port: number;
    try {
      port = first.port;
      await first.psql(
        [
          'CREATE DATABASE left_behind;',
          'CREATE ROLE left_role LOGIN;',
          'ALTER SYSTEM SET work_mem = 12345;',
          "ALTER ROLE postgres SET search_path = 'nowhere';",
          'CREATE TABLE in_postgres (id int);',
        ].join('\n'),
      );
      await first.psql('SELECT pg_reload_conf()');
      mkdirSync(join(dirname(first.dataDir), 'fast_ssd'));
    } finally {
      await first.stop();
    }

    const second = await workerCluster({ password: 'second-file-pw' });
    try {
      expect(second.port).toBe(port);
      expect(second.password).toBe('second-file-pw');
      expect(second.dsn('postgres', true)).toBe(`postgresql://postgres:second-file-pw@127.0.0.1:${port}/postgres`);
      expect(await second.psql("SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database")).toBe('postgres,template0,template1');
      expect(await second.psql("SELECT count(*) FROM pg_roles WHERE rolname !~ '^pg_'")).toBe('1');
      expect(await second.psql("SELECT count(*) FROM pg_class WHERE relname = 'in_postgres'")).toBe('0');
      expect(await second.psql('SHOW work_mem')).toBe('4MB');
      expect(await second.psql('SHOW search_path')).toBe('"$user", public');
      expect(existsSync(join(dirname(second.dataDir), 'fast_ssd'))).toBe(false);
      const stale = await workerCluster({ password: 'third' }).catch((e: unknown) => e);
      // Taken by this process: a second ask gets a cluster of its own.
      expect(stale).not.toBeInstanceOf(Error);
      if (!(stale instanceof Error)) {
        expect((stale as { port: number }).port).not.toBe(port);
        await (stale as { stop(): Promise<void> }).stop();
      }
    } finally {
      await second.stop();
    }
  });
});
