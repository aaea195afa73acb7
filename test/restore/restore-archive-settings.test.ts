/**
 * `restore create` applies the archive's database and role settings as the target's role
 * (cli-contract 7.16 a; issue 29, item 1): restoring into a new database as a role that is not a
 * superuser, the server refuses the superuser-only parameters and the setting for the role
 * `postgres`, and the receipt lists each in `notApplied` with the server's reason; the ordinary one
 * is applied. A real pg_dump, restored by the built CLI into a real PostgreSQL.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveDump, useDump } from '../support/archive-sources.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, DSN_PASSWORD, useRestoreHarness } from '../support/restore-harness.js';
import { dumpDatabase } from '../support/seed.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/restore-archive-settings.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)("restore create applies the archive's settings as the target's role", () => {
  const h = useRestoreHarness({ built: true });

  it("as a role that is not a superuser: the ordinary setting is stored, each refused one is in notApplied with the server's reason", async () => {
    const sql = (text: string, db = 'postgres') => h.cluster.psql(text, db);
    await sql(`CREATE DATABASE settings_src; CREATE ROLE restorer LOGIN CREATEDB PASSWORD '${DSN_PASSWORD.replaceAll("'", "''")}';`);
    await sql(
      `ALTER DATABASE settings_src SET lo_compat_privileges = on;
       ALTER DATABASE settings_src SET session_preload_libraries = 'auto_explain';
       ALTER DATABASE settings_src SET postgis.gdal_enabled_drivers = 'ENABLE_ALL';
       ALTER DATABASE settings_src SET statement_timeout = '7s';
       ALTER ROLE postgres IN DATABASE settings_src SET work_mem = '77kB';`,
      'settings_src',
    );
    const archive = join(h.scratch, 'settings.pgdump');
    await dumpDatabase(h.cluster, 'settings_src', archive);
    useDump(h, await serveDump(h, archive));

    const receiptPath = join(h.scratch, 'settings.receipt.json');
    const dsn = `postgresql://restorer:${encodeURIComponent(DSN_PASSWORD)}@127.0.0.1:${h.cluster.port}/settings_copy`;
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir(), '--receipt', receiptPath], {
      env: { SVC_TARGET_DSN: dsn },
    });
    expect(r.code, r.stderr).toBe(0);

    const stored = await sql(
      "SELECT string_agg(coalesce(r.rolname, '(database)') || ': ' || array_to_string(s.setconfig, ' '), '; ') FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase LEFT JOIN pg_roles r ON r.oid = s.setrole WHERE d.datname = 'settings_copy'",
    );
    expect(stored).toBe('(database): statement_timeout=7s');
    const receipt = JSON.parse(await readFile(receiptPath, 'utf8')) as {
      databaseSettings: { applied: string[]; notApplied: Array<{ statement: string; reason: string }> };
    };
    expect(receipt.databaseSettings.applied).toEqual(['ALTER DATABASE "settings_copy" SET "statement_timeout" TO \'7s\';']);
    expect([...receipt.databaseSettings.notApplied].sort((a, b) => a.statement.localeCompare(b.statement))).toEqual([
      {
        statement: 'ALTER DATABASE "settings_copy" SET "lo_compat_privileges" TO \'on\';',
        reason: 'permission denied to set parameter "lo_compat_privileges"',
      },
      {
        statement: 'ALTER DATABASE "settings_copy" SET "postgis.gdal_enabled_drivers" TO \'ENABLE_ALL\';',
        reason: 'permission denied to set parameter "postgis.gdal_enabled_drivers"',
      },
      {
        statement: 'ALTER DATABASE "settings_copy" SET "session_preload_libraries" TO \'auto_explain\';',
        reason: 'permission denied to set parameter "session_preload_libraries"',
      },
      { statement: 'ALTER ROLE "postgres" IN DATABASE "settings_copy" SET "work_mem" TO \'77kB\';', reason: 'must be superuser to alter superusers' },
    ]);
    expect(r.stderr).toContain(
      'warning: Not applied: ALTER DATABASE "settings_copy" SET "lo_compat_privileges" TO \'on\'; (permission denied to set parameter "lo_compat_privileges")',
    );
  }, 180_000);
});
