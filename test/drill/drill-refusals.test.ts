/**
 * What an unprivileged restore cannot create is found from the server's refusals, entry by entry
 * (cli-contract 7.14, 7.18; issue 31 items 2 and 6), through the built CLI against real PostgreSQL.
 * `refused` holds what PostgreSQL's regression database holds and only a superuser or a built-in
 * type's owner may create: a transform and a cast on built-in types, an operator class (and its
 * family) on int4, an event trigger, a LANGUAGE c function. It also holds what used to be lost
 * silently: a function whose EXECUTE was revoked from PUBLIC, and an extension's comment. `broken`
 * holds the same event trigger and a genuinely broken object: a CHECK that calls a function whose
 * unqualified table reference pg_dump's empty search_path cannot resolve.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSvc } from '../support/built-cli.js';
import { keptDb } from '../support/corpus-compare.js';
import { processesIn } from '../support/drill-e2e.js';
import { drillApi, DRILLED } from '../support/drill-signals.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, useRestoreHarness } from '../support/restore-harness.js';
import { artifactInfo, dumpDatabase, type ArtifactInfo } from '../support/seed.js';
import type { ArtifactServer } from '../support/artifact-server.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-refusals.test.ts skipped: ${skip}`);

const EVENT_TRIGGER = `CREATE FUNCTION public.on_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN END $$;
CREATE EVENT TRIGGER et ON ddl_command_end EXECUTE FUNCTION public.on_ddl();`;

/** What used to be lost silently, in an archive an unprivileged role restores whole. */
const SILENT = `CREATE EXTENSION pgcrypto;
CREATE TABLE public.things (id int PRIMARY KEY, v text);
INSERT INTO public.things SELECT g, 'thing ' || g FROM generate_series(1, 20) g;
CREATE FUNCTION public.secret(a int, b text) RETURNS int LANGUAGE sql AS 'SELECT 1';
REVOKE EXECUTE ON FUNCTION public.secret(int, text) FROM PUBLIC;
CREATE FUNCTION public.open(a int) RETURNS int LANGUAGE sql AS 'SELECT 1';`;

const REFUSED = `${SILENT}
CREATE TRANSFORM FOR integer LANGUAGE sql (FROM SQL WITH FUNCTION prsd_lextype(internal), TO SQL WITH FUNCTION int4recv(internal));
CREATE CAST (text AS int4range) WITH INOUT;
CREATE OPERATOR CLASS public.my_int_ops FOR TYPE int4 USING btree AS OPERATOR 1 <, FUNCTION 1 btint4cmp(int4, int4);
CREATE FUNCTION public.cfun(int) RETURNS int LANGUAGE c AS '$libdir/plpgsql', 'plpgsql_call_handler';
${EVENT_TRIGGER}`;

const BROKEN = `CREATE TABLE public.lookup (x int);
INSERT INTO public.lookup VALUES (1);
CREATE FUNCTION public.positive(v int) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT v > (SELECT min(x) - 1 FROM lookup)';
CREATE TABLE public.guarded (v int CHECK (public.positive(v)));
INSERT INTO public.guarded VALUES (5);
${EVENT_TRIGGER}`;

const CHECKS = `-- check: secret_not_public
SELECT 'executable by everyone' AS problem WHERE has_function_privilege('public.secret(integer, text)', 'EXECUTE')
-- check: open_still_public
SELECT 'open() lost PUBLIC' AS problem WHERE NOT has_function_privilege('public.open(integer)', 'EXECUTE')
-- check: extension_comment
SELECT obj_description(oid, 'pg_extension') FROM pg_extension WHERE extname = 'pgcrypto' AND obj_description(oid, 'pg_extension') IS DISTINCT FROM 'cryptographic functions'
`;

type Key = 'silent' | 'refused' | 'broken';

describe.skipIf(!!skip)('a drill lists what the server refuses its unprivileged role, and fails on anything else', { timeout: 180_000 }, () => {
  const h = useRestoreHarness({ built: true });
  const archives = {} as Record<Key, { server: ArtifactServer; info: ArtifactInfo }>;

  beforeAll(async () => {
    await chmod(h.scratch, 0o711);
    for (const [key, sql] of [
      ['silent', SILENT],
      ['refused', REFUSED],
      ['broken', BROKEN],
    ] as const) {
      await h.cluster.psql(`CREATE DATABASE refusals_${key} TEMPLATE template0`);
      await h.cluster.psql(sql, `refusals_${key}`);
      const file = join(h.scratch, `${key}.pgdump`);
      await dumpDatabase(h.cluster, `refusals_${key}`, file);
      archives[key] = { server: await h.serve(file), info: await artifactInfo(file) };
    }
  }, 300_000);

  /** `svc restore drill db_orders --json ...` of `key`'s archive; `inspect` gets the kept database with --keep. */
  async function drill(key: Key, args: string[], inspect?: (psql: (sql: string) => Promise<string>) => Promise<void>) {
    h.artifact = archives[key].server;
    h.info = archives[key].info;
    await h.reset();
    drillApi(h);
    const dir = await mkdtemp(join(h.scratch, 'drill-'));
    const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
    await chmod(dir, 0o711);
    await chmod(tmp, 0o755);
    const checks = join(tmp, 'checks.sql');
    writeFileSync(checks, CHECKS);
    const r = await spawnSvc(['restore', 'drill', DRILLED, '--json', '--work-dir', dir, ...args.map((a) => (a === 'CHECKS' ? checks : a))], {
      env: h.env({ TMPDIR: tmp, SVC_PG_BINDIR: h.cluster.serverBinDir }),
      timeoutMs: 120_000,
    });
    const stderr = String(r.stderr);
    h.record(String(r.stdout), stderr);
    const lines = [...stderr.matchAll(/^db_orders: kept: (.+)$/gm)].map((m) => m[1]!);
    try {
      if (inspect)
        await inspect((sql) =>
          keptDb(
            lines.find((l) => l.startsWith('psql '))!,
            h.cluster.binDir,
          ).psql(sql),
        );
    } finally {
      const stop = lines.find((l) => l.includes('pg_ctl ') && l.includes(' stop '));
      if (stop) for (const command of stop.split('   # then: ')) await execa('sh', ['-c', command], { reject: false });
      for (const p of processesIn(dir)) process.kill(Number(p.split(' ')[0]), 'SIGKILL');
      await rm(dir, { recursive: true, force: true });
      await rm(tmp, { recursive: true, force: true });
    }
    const db = r.stdout.length ? JSON.parse(String(r.stdout)).drill.databases[0] : undefined;
    return { code: r.exitCode, stderr, db };
  }

  it("lists each refused entry with the server's reason and passes, the checks through what it restored included", async () => {
    const r = await drill('refused', ['--check', 'CHECKS']);
    expect(r.code, r.stderr).toBe(0);
    const listed = (r.db.notRestored as Array<{ type: string; name: string; reason: string }>).map((n) => `${n.type} ${n.name}: ${n.reason}`).sort();
    expect(listed).toEqual([
      'CAST CAST (text AS int4range): must be owner of type text or type int4range',
      'EVENT TRIGGER et: permission denied to create event trigger "et"',
      'FUNCTION public.cfun(integer): permission denied for language c',
      'OPERATOR CLASS public.my_int_ops: must be superuser to create an operator class',
      'OPERATOR FAMILY public.my_int_ops: must be superuser to create an operator family',
      'TRANSFORM TRANSFORM FOR integer LANGUAGE sql: must be owner of type integer',
    ]);
    expect(r.db.checks.map((c: { name: string; status: string }) => `${c.name} ${c.status}`)).toEqual(
      [
        'backup_selected',
        'artifact_verified',
        'restore_clean',
        'objects_present',
        'data_present',
        'rows_match',
        'check:secret_not_public',
        'check:open_still_public',
        'check:extension_comment',
      ].map((n) => `${n} passed`),
    );
    expect(r.stderr).toMatch(/^db_orders: not restored: transform TRANSFORM FOR integer LANGUAGE sql: must be owner of type integer$/m);
  });

  it("REVOKE EXECUTE ... FROM PUBLIC and the extension's comment are applied, although privileges are not; nothing is listed", async () => {
    const r = await drill('silent', ['--check', 'CHECKS']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.db.notRestored).toEqual([]);
    expect(
      r.db.checks
        .filter((c: { name: string }) => c.name.startsWith('check:'))
        .map((c: { name: string; status: string; detail?: string }) => [c.name, c.status, c.detail]),
    ).toEqual([
      ['check:secret_not_public', 'passed', undefined],
      ['check:open_still_public', 'passed', undefined],
      ['check:extension_comment', 'passed', undefined],
    ]);
  });

  it('--strict fails restore_clean on the same archive, naming each refused entry', async () => {
    const r = await drill('refused', ['--strict']);
    expect(r.code, r.stderr).toBe(13);
    expect(r.db.failure).toMatchObject({ check: 'restore_clean', code: 'not_restored' });
    expect(r.db.failure.message).toContain('transform TRANSFORM FOR integer LANGUAGE sql (must be owner of type integer)');
  });

  it('an error that is not a refused privilege still fails restore_clean, naming it', async () => {
    const r = await drill('broken', []);
    expect(r.code, r.stderr).toBe(13);
    expect(r.db.failure).toMatchObject({ check: 'restore_clean' });
    expect(r.db.failure.message).toMatch(/relation "lookup" does not exist/);
    expect(r.db.checks.find((c: { name: string }) => c.name === 'restore_clean').status).toBe('failed');
  });

  it('restore create of the broken archive is still exit 11', async () => {
    h.artifact = archives.broken.server;
    h.info = archives.broken.info;
    await h.reset();
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir()], {
      env: { SVC_TARGET_DSN: h.dsn('refusals_broken_copy', true) },
    });
    expect(r.code, r.stderr).toBe(11);
    expect(r.stderr).toMatch(/relation "lookup" does not exist/);
  });

  it('restore create applies REVOKE EXECUTE ... FROM PUBLIC too: the function is not executable by everyone', async () => {
    h.artifact = archives.silent.server;
    h.info = archives.silent.info;
    await h.reset();
    const target = 'refusals_silent_copy';
    await h.dropDatabase(target);
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir()], { env: { SVC_TARGET_DSN: h.dsn(target, true) } });
    expect(r.code, r.stderr).toBe(0);
    const can = (fn: string) => h.cluster.psql(`SELECT has_function_privilege('public', '${fn}', 'EXECUTE')`, target);
    expect({ secret: await can('public.secret(integer, text)'), open: await can('public.open(integer)') }).toEqual({ secret: 'f', open: 't' });
  });

  it("--keep leaves neither svc's marker as the database's comment nor a GRANT on pg_catalog in the kept database", async () => {
    const r = await drill('silent', ['--keep'], async (psql) => {
      const comment = await psql("SELECT coalesce(shobj_description(oid, 'pg_database'), '(none)') FROM pg_database WHERE datname = current_database()");
      const catalogAcl = await psql("SELECT nspacl::text FROM pg_namespace WHERE nspname = 'pg_catalog'");
      expect({ comment, catalogAcl }).toEqual({ comment: '(none)', catalogAcl: '{postgres=UC/postgres,=U/postgres}' });
    });
    expect(r.code, r.stderr).toBe(0);
  });
});
