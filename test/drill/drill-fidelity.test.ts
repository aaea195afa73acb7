/**
 * A drill restores the backup's database, not an approximation of it (cli-contract 7.11, 7.12, 9):
 * the scratch database gets the archive's encoding and locale and its database settings, and a
 * tablespace of the source (which a scratch cluster never has) is ignored with --no-tablespaces,
 * which the result says. db_orders' backup serves a real dump of a LATIN1 database with
 * `search_path` set at database level and a table in the tablespace fast_ssd. Skips without a
 * PostgreSQL server, except under CI.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { writeSandboxDataWithArtifact } from '../support/sandbox-data.js';
import { dumpDatabase } from '../support/seed.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-fidelity.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('a drill of a LATIN1 database with database settings and a tablespace', () => {
  const data = mkdtempSync(join(tmpdir(), 'svc-drill-fidelity-'));
  const h = new DrillE2e();

  beforeAll(async () => {
    const archive = join(data, 'orders.pgdump');
    const cluster = await workerCluster();
    try {
      const dir = join(dirname(cluster.dataDir), 'fast_ssd');
      mkdirSync(dir);
      chownSync(
        dir,
        Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
        Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
      );
      chmodSync(dir, 0o700);
      await cluster.psql(`CREATE TABLESPACE fast_ssd LOCATION '${dir}'; CREATE DATABASE orders TEMPLATE template0 ENCODING LATIN1 LOCALE 'C';`);
      await cluster.psql(
        `SET client_encoding = 'UTF8';
         CREATE SCHEMA app; CREATE TABLE app.accounts (id int PRIMARY KEY, name text) TABLESPACE fast_ssd;
         INSERT INTO app.accounts SELECT g, 'Müller ' || g FROM generate_series(1, 50) g;
         ALTER DATABASE orders SET search_path TO app, public;`,
        'orders',
      );
      await dumpDatabase(cluster, 'orders', archive);
      await cluster.psql('DROP DATABASE orders; DROP TABLESPACE fast_ssd;');
    } finally {
      await cluster.stop();
    }
    await writeSandboxDataWithArtifact(join(data, 'sandbox'), 'acme-orders', archive);
    await h.start({ dataDir: join(data, 'sandbox') });
  }, 180_000);
  afterAll(async () => {
    await h.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it("passes, with the archive's encoding and search_path in the scratch database, and says the tablespace was ignored", async () => {
    const check = join(h.workDir(), 'fidelity.sql');
    // Each check is a new session of the scratch database: the unqualified name resolves through the restored search_path.
    // The check is ASCII (the check runner's client encoding is the database's): 'ü' is one LATIN1 byte, one character.
    writeFileSync(
      check,
      [
        '-- check: latin1_and_search_path',
        "SELECT pg_encoding_to_char(encoding) AS encoding, current_setting('search_path') AS search_path FROM pg_database",
        "WHERE datname = current_database() AND (pg_encoding_to_char(encoding) <> 'LATIN1' OR current_setting('search_path') <> 'app, public' OR (SELECT count(*) FROM accounts WHERE name LIKE 'M_ller %' AND length(name) = length('Mxller ' || id) AND octet_length(name) = length(name)) <> 50)",
        '',
      ].join('\n'),
    );
    const r = await h.drill(['db_orders', '--check', check, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const db = r.doc!.databases[0]!;
    expect(db.checks.map((c) => [c.name, c.status])).toEqual([
      ['backup_selected', 'passed'],
      ['artifact_verified', 'passed'],
      ['restore_clean', 'passed'],
      ['objects_present', 'passed'],
      ['data_present', 'passed'],
      ['rows_match', 'passed'],
      ['check:latin1_and_search_path', 'passed'],
    ]);
    expect(db.receipt!.tablespaces).toEqual({ named: ['fast_ssd'], ignored: true });
    expect(db.receipt!.databaseOptions).toEqual({ ENCODING: 'LATIN1', LOCALE_PROVIDER: 'libc', LOCALE: 'C' });
    expect(db.receipt!.databaseSettings!.applied).toEqual([
      expect.stringMatching(/^ALTER DATABASE "svc_drill_db_orders_[0-9a-f]{8}" SET "search_path" TO 'app', 'public';$/),
    ]);
  }, 180_000);
});
