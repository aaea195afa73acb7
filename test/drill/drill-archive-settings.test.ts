/**
 * A backup's database settings cannot act with more rights than the role that restores it
 * (cli-contract 7.16 a; issue 29, item 1). The drill re-applied the archive's `ALTER DATABASE ... SET`
 * and `ALTER ROLE ... IN DATABASE ... SET` as the scratch cluster's superuser, so a backup could
 * store superuser-only parameters (`session_preload_libraries`, `lo_compat_privileges`,
 * `postgis.gdal_enabled_drivers`: the path by which a planted function read svc's environment) and
 * settings for the role `postgres`, which then applied to every later session in the scratch
 * database. Now the owner role the drill restores as applies them, and the server refuses what that
 * role may not set; each refusal is listed in `notApplied` with the server's reason.
 * A real pg_dump of a real source database, drilled by the built CLI into `--scratch auto`.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e, stopKept } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { writeSandboxDataWithArtifacts } from '../support/sandbox-data.js';
import { dumpDatabase } from '../support/seed.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-archive-settings.test.ts skipped: ${skip}`);

/** Every setting stored for the scratch database (its own and its roles'), as one line. */
const STORED = `SELECT string_agg(coalesce(r.rolname, '(database)') || ': ' || array_to_string(s.setconfig, ' '), '; ' ORDER BY r.rolname NULLS FIRST)
  FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase LEFT JOIN pg_roles r ON r.oid = s.setrole
  WHERE d.datname = current_database()`;

/**
 * An `=` for oids that runs a program when a superuser's query uses it: with the archive's
 * `search_path = evil, pg_catalog` stored on the database, it comes before pg_catalog's for every
 * later session there, and an ordinary role's queries still get the right answer from it.
 */
const planted = (marker: string) => `CREATE SCHEMA evil;
  CREATE FUNCTION evil.eq(a oid, b oid) RETURNS boolean LANGUAGE plpgsql AS $f$
  BEGIN
    IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
      EXECUTE 'COPY (SELECT 1) TO PROGRAM ' || pg_catalog.quote_literal('touch ${marker}');
    END IF;
    RETURN a OPERATOR(pg_catalog.=) b;
  END $f$;
  CREATE OPERATOR evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = evil.eq);
  CREATE TABLE invoices (id int PRIMARY KEY); INSERT INTO invoices SELECT generate_series(1, 20);
  ALTER DATABASE billing SET search_path = evil, pg_catalog, public;`;

describe.skipIf(!!skip)("a backup's database settings act with no more rights than the role that restored it", () => {
  const data = mkdtempSync(join(tmpdir(), 'svc-drill-archive-settings-'));
  // Where the scratch server's OS user can write, were the planted operator to run as its superuser.
  const markers = join(data, 'markers');
  const marker = join(markers, 'ran-as-superuser');
  const h = new DrillE2e();

  beforeAll(async () => {
    chmodSync(data, 0o755);
    mkdirSync(markers, { mode: 0o777 });
    chmodSync(markers, 0o777);
    const archive = join(data, 'orders.pgdump');
    const billing = join(data, 'billing.pgdump');
    const cluster = await workerCluster();
    try {
      await cluster.psql('CREATE DATABASE billing');
      await cluster.psql(planted(marker), 'billing');
      await dumpDatabase(cluster, 'billing', billing);
      await cluster.psql('CREATE DATABASE orders');
      // As the source's superuser, as a DBA who uses rasters would: the archive carries them all.
      await cluster.psql(
        `CREATE TABLE accounts (id int PRIMARY KEY); INSERT INTO accounts SELECT generate_series(1, 20);
         ALTER DATABASE orders SET lo_compat_privileges = on;
         ALTER DATABASE orders SET session_preload_libraries = 'auto_explain';
         ALTER DATABASE orders SET postgis.gdal_enabled_drivers = 'ENABLE_ALL';
         ALTER DATABASE orders SET statement_timeout = '7s';
         ALTER ROLE postgres IN DATABASE orders SET work_mem = '77kB';`,
        'orders',
      );
      await dumpDatabase(cluster, 'orders', archive);
    } finally {
      await cluster.stop();
    }
    await writeSandboxDataWithArtifacts(join(data, 'sandbox'), { 'acme-orders': archive, billing });
    await h.start({ dataDir: join(data, 'sandbox') });
  }, 180_000);
  afterAll(async () => {
    await h.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it("stores only the ordinary setting; each refused one is in notApplied with the server's reason", async () => {
    const check = join(h.workDir(), 'settings.sql');
    // Passes only when the scratch database holds exactly the setting the owner role may make; else shows what it holds.
    writeFileSync(
      check,
      ['-- check: stored_settings', `SELECT stored FROM (${STORED}) AS x(stored) WHERE stored IS DISTINCT FROM '(database): statement_timeout=7s'`, ''].join(
        '\n',
      ),
    );
    const r = await h.drill(['db_orders', '--check', check, '--json'], { timeoutMs: 150_000 });
    expect(r.doc, r.stderr).toBeDefined();
    const db = r.doc!.databases[0]!;
    expect.soft(db.checks.find((c) => c.name === 'check:stored_settings')).toMatchObject({ status: 'passed' });
    expect.soft(r.code, r.stderr).toBe(0);

    const settings = db.receipt!.databaseSettings!;
    const scratch = /"(svc_drill_db_orders_[0-9a-f]{8})"/.exec(settings.applied.join(' '))?.[1];
    expect(scratch, JSON.stringify(settings)).toBeDefined();
    const q = `"${scratch}"`;
    expect.soft(settings.applied).toEqual([`ALTER DATABASE ${q} SET "statement_timeout" TO '7s';`]);
    expect.soft([...settings.notApplied].sort((a, b) => a.statement.localeCompare(b.statement))).toEqual([
      { statement: `ALTER DATABASE ${q} SET "lo_compat_privileges" TO 'on';`, reason: 'permission denied to set parameter "lo_compat_privileges"' },
      {
        statement: `ALTER DATABASE ${q} SET "postgis.gdal_enabled_drivers" TO 'ENABLE_ALL';`,
        reason: 'permission denied to set parameter "postgis.gdal_enabled_drivers"',
      },
      {
        statement: `ALTER DATABASE ${q} SET "session_preload_libraries" TO 'auto_explain';`,
        reason: 'permission denied to set parameter "session_preload_libraries"',
      },
      { statement: `ALTER ROLE "postgres" IN DATABASE ${q} SET "work_mem" TO '77kB';`, reason: 'must be superuser to alter superusers' },
    ]);
  }, 180_000);

  it("--keep: svc's superuser never queries the scratch database after the archive's settings are in it, so a planted operator runs as no superuser", async () => {
    const r = await h.drill(['db_billing', '--keep', '--json'], { keeps: true, timeoutMs: 150_000 });
    try {
      expect(r.doc, r.stderr).toBeDefined();
      const db = r.doc!.databases[0]!;
      expect.soft(r.code, r.stderr).toBe(0);
      expect
        .soft(db.receipt!.databaseSettings!.applied)
        .toEqual([expect.stringMatching(/^ALTER DATABASE "svc_drill_db_billing_[0-9a-f]{8}" SET "search_path" TO 'evil', 'pg_catalog', 'public';$/)]);
      expect.soft(db.kept, r.stderr).toBeDefined();
      expect(existsSync(marker)).toBe(false);
    } finally {
      await stopKept(r.stderr, r.workDir, 'db_billing');
    }
  }, 180_000);
});
