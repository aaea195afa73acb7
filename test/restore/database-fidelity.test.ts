/**
 * The restored database is the backup's database (cli-contract 7.11 to 7.13, issue 23): a new
 * database gets the archive's encoding, locale and provider, then its database-level settings and
 * comment; a locale or tablespace the target lacks is exit 11 before anything is created; a tar
 * archive restores with one job; plain-SQL and directory-format artifacts are exit 11 naming the
 * format. Real pg_dump archives of real source databases on the machine's PostgreSQL 15 (the client
 * tools' own major, so pg_dump can dump them), restored by svc into the harness's server: the same
 * 15, or another major with SVC_TEST_PG_BINDIR. Skips without a PostgreSQL server, except under CI.
 */
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dumpAs, serveDump, useDump, type ServedDump } from '../support/archive-sources.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { describeDatabase, seedDatabase, SEED_DATABASE } from '../support/seed.js';
import { BACKUP_ID, RestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/database-fidelity.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('the restored database is the backup database', () => {
  const h = new RestoreHarness();
  let src: PgCluster;
  const dumps: Record<string, ServedDump> = {};
  let tablespaceDir = '';
  /** On the target server (the harness's). */
  const sql = (text: string, db = 'postgres') => h.cluster.psql(text, db);
  const dump = async (name: string, db: string, format: 'custom' | 'tar' | 'plain' | 'directory' = 'custom') => {
    const path = join(h.scratch, `${name}.${format}`);
    await dumpAs(src, db, path, format);
    dumps[name] = await serveDump(h, path);
  };

  beforeAll(async () => {
    const [started, source] = await Promise.allSettled([h.start(), startCluster()]);
    if (source.status === 'fulfilled') src = source.value;
    for (const r of [started, source]) if (r.status === 'rejected') throw r.reason;
    const on = (text: string, db = 'postgres') => src.psql(text, db);
    await seedDatabase(src, SEED_DATABASE);
    await on(`CREATE ROLE reporting NOLOGIN;
      CREATE DATABASE settings_src;
      CREATE DATABASE ascii_src TEMPLATE template0 ENCODING SQL_ASCII LOCALE 'C';
      CREATE DATABASE latin1_src TEMPLATE template0 ENCODING LATIN1 LOCALE 'C';
      CREATE DATABASE icu_src TEMPLATE template0 ENCODING UTF8 LOCALE 'C' LOCALE_PROVIDER icu ICU_LOCALE 'de-DE';`);
    await on(
      `CREATE SCHEMA app; CREATE TABLE app.accounts (id int PRIMARY KEY, name text);
       INSERT INTO app.accounts SELECT g, 'account ' || g FROM generate_series(1, 20) g;
       ALTER DATABASE settings_src SET search_path TO app, public;
       ALTER DATABASE settings_src SET statement_timeout = '5s';
       ALTER ROLE reporting IN DATABASE settings_src SET work_mem = '8MB';
       COMMENT ON DATABASE settings_src IS 'orders, as of the backup; it''s ours';`,
      'settings_src',
    );
    await on(`CREATE TABLE t (v text); INSERT INTO t VALUES (E'caf\\351');`, 'ascii_src');
    await on(`SET client_encoding = 'UTF8'; CREATE TABLE t (v text); INSERT INTO t VALUES ('café');`, 'latin1_src');
    await on(
      `CREATE TABLE words (w text) PARTITION BY RANGE (w);
       CREATE TABLE words_a PARTITION OF words FOR VALUES FROM (MINVALUE) TO ('b');
       CREATE TABLE words_b PARTITION OF words FOR VALUES FROM ('b') TO (MAXVALUE);
       INSERT INTO words VALUES ('a'), ('Ä'), ('B'), ('c'), ('z'), ('Z');`,
      'icu_src',
    );
    // A tablespace needs a directory the server's OS user owns: beside a data directory, removed with its cluster.
    const [uid, gid] = [Number((await execa('id', ['-u', 'postgres'])).stdout), Number((await execa('id', ['-g', 'postgres'])).stdout)];
    for (const c of [src, h.cluster]) {
      const dir = join(dirname(c.dataDir), 'fast_ssd');
      await mkdir(dir);
      await chown(dir, uid, gid);
      await chmod(dir, 0o700);
    }
    tablespaceDir = join(dirname(h.cluster.dataDir), 'fast_ssd');
    await on(`CREATE TABLESPACE fast_ssd LOCATION '${join(dirname(src.dataDir), 'fast_ssd')}'`);
    await on('CREATE DATABASE ts_src');
    await on(`CREATE TABLE hot (id int PRIMARY KEY) TABLESPACE fast_ssd; INSERT INTO hot SELECT generate_series(1, 10);`, 'ts_src');

    // The role exists only on the source server: the archive names a role the target does not have.
    await dump('settings', 'settings_src');
    await dump('ascii', 'ascii_src');
    await dump('latin1', 'latin1_src');
    await dump('icu', 'icu_src');
    // The same archive asking for an ICU locale no server has: same length, so the archive stays well-formed.
    const bytes = await readFile(dumps.icu!.path);
    const at = bytes.indexOf("ICU_LOCALE = 'de-DE'");
    expect(at).toBeGreaterThan(0);
    bytes.write("ICU_LOCALE = 'de-QQ'", at, 'latin1');
    await writeFile(join(h.scratch, 'icu-missing.custom'), bytes);
    dumps.icuMissing = await serveDump(h, join(h.scratch, 'icu-missing.custom'));
    await dump('ts', 'ts_src');
    await dump('tar', SEED_DATABASE, 'tar');
    await dump('plain', SEED_DATABASE, 'plain');
    const dir = join(h.scratch, 'dirdump');
    await dumpAs(src, SEED_DATABASE, dir, 'directory');
    const packed = join(h.scratch, 'dirdump.tar');
    await execa('tar', ['-cf', packed, '-C', dir, 'toc.dat', ...(await execa('ls', [dir])).stdout.split('\n').filter((f) => f !== 'toc.dat')]);
    dumps.dir = await serveDump(h, packed);
  }, 300_000);
  afterAll(async () => {
    await h.cluster?.psql('DROP TABLESPACE IF EXISTS fast_ssd').catch(() => {});
    await src?.psql('DROP DATABASE IF EXISTS ts_src').catch(() => {});
    await src?.psql('DROP TABLESPACE IF EXISTS fast_ssd').catch(() => {});
    await Promise.allSettled([h.stop(), src?.stop()]);
  });
  beforeEach(() => h.reset());
  afterEach(() => h.expectNoSecretsLeft());

  const restore = async (name: string, database: string, extra: string[] = []) => {
    useDump(h, dumps[name]!);
    const workDir = await h.workDir();
    const receiptPath = join(h.scratch, `${database}.receipt.json`);
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receiptPath, ...extra], {
      env: { SVC_TARGET_DSN: h.dsn(database, true) },
    });
    return { ...r, receipt: async () => JSON.parse(await readFile(receiptPath, 'utf8')) as Record<string, any> };
  };

  it("a new database gets the archive's search_path, statement_timeout and comment under its new name; a role the server lacks is listed as not applied", async () => {
    const r = await restore('settings', 'settings_copy');
    expect(r.code, r.stderr).toBe(0);
    // A new session of the application: the unqualified name resolves through the restored search_path.
    expect(await sql('SELECT count(*) FROM accounts', 'settings_copy')).toBe('20');
    expect(await sql('SHOW statement_timeout', 'settings_copy')).toBe('5s');
    expect(await sql("SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = 'settings_copy'")).toBe(
      "orders, as of the backup; it's ours",
    );
    const receipt = await r.receipt();
    expect(receipt.databaseSettings.applied).toEqual([
      'ALTER DATABASE "settings_copy" SET "search_path" TO \'app\', \'public\';',
      'ALTER DATABASE "settings_copy" SET "statement_timeout" TO \'5s\';',
      "COMMENT ON DATABASE \"settings_copy\" IS 'orders, as of the backup; it''s ours';",
    ]);
    expect(receipt.databaseSettings.notApplied).toEqual([
      { statement: 'ALTER ROLE "reporting" IN DATABASE "settings_copy" SET "work_mem" TO \'8MB\';', reason: 'role "reporting" does not exist' },
    ]);
    expect(r.stderr).toContain('warning: Not applied: ALTER ROLE "reporting" IN DATABASE "settings_copy"');
    // Nothing was applied under the archive's name.
    expect(await sql("SELECT count(*) FROM pg_database WHERE datname = 'settings_src'")).toBe('0');
  });

  it("in place, the settings are the operator's: applied only with --database-settings", async () => {
    await sql('CREATE DATABASE settings_inplace');
    const plain = await restore('settings', 'settings_inplace', ['--in-place', '--confirm']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(await sql('SHOW statement_timeout', 'settings_inplace')).toBe('0');
    expect((await plain.receipt()).databaseSettings).toBeNull();
    const withSettings = await restore('settings', 'settings_inplace', ['--in-place', '--confirm', '--database-settings']);
    expect(withSettings.code, withSettings.stderr).toBe(0);
    expect(await sql('SHOW statement_timeout', 'settings_inplace')).toBe('5s');
    expect(await sql('SHOW search_path', 'settings_inplace')).toBe('app, public');
  });

  it('a SQL_ASCII source keeps its encoding: the byte 0xe9 reads back as one character', async () => {
    const r = await restore('ascii', 'ascii_copy');
    expect(r.code, r.stderr).toBe(0);
    expect(await sql("SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = 'ascii_copy'")).toBe('SQL_ASCII');
    expect(await sql('SELECT length(v), octet_length(v) FROM t', 'ascii_copy')).toBe('4|4');
    expect((await r.receipt()).databaseOptions).toMatchObject({ ENCODING: 'SQL_ASCII', LOCALE_PROVIDER: 'libc' });
  });

  it('a LATIN1 source is restored as LATIN1, not as the server default UTF8', async () => {
    const r = await restore('latin1', 'latin1_copy');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Created database "latin1_copy" (TEMPLATE template0, LATIN1, libc C).');
    expect(await sql("SELECT pg_encoding_to_char(encoding), datcollate FROM pg_database WHERE datname = 'latin1_copy'")).toBe('LATIN1|C');
    expect(await sql("SET client_encoding = 'UTF8'; SELECT v, octet_length(v) FROM t", 'latin1_copy')).toBe('café|4');
  });

  it("in place, the restored database is the backup's: a UTF8 target of a LATIN1 backup becomes LATIN1, the replaced one kept as it was", async () => {
    await sql("CREATE DATABASE latin1_inplace TEMPLATE template0 ENCODING UTF8 LOCALE 'C'");
    const r = await restore('latin1', 'latin1_inplace', ['--in-place', '--confirm']);
    expect(r.code, r.stderr).toBe(0);
    expect(await sql("SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = 'latin1_inplace'")).toBe('LATIN1');
    expect(await sql("SET client_encoding = 'UTF8'; SELECT v FROM t", 'latin1_inplace')).toBe('café');
    const kept = (await r.receipt()).inPlace.kept as string;
    expect(await sql(`SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = '${kept}'`)).toBe('UTF8');
  });

  it('an ICU de-DE source with a text range-partitioned table restores, and sorts as the source did (PostgreSQL 14 has no ICU databases: exit 11)', async () => {
    const r = await restore('icu', 'icu_copy');
    if (h.cluster.serverMajor < 15) {
      expect(r.code).toBe(11);
      expect(r.stderr).toContain("error: The archive's database was created with LOCALE_PROVIDER = 'icu', which PostgreSQL 14.");
      expect(await h.databaseExists('icu_copy')).toBe(false);
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    const locale = h.cluster.serverMajor >= 17 ? 'datlocale' : 'daticulocale';
    expect(await sql(`SELECT datlocprovider, ${locale} FROM pg_database WHERE datname = 'icu_copy'`)).toBe('i|de-DE');
    expect(await sql("SELECT string_agg(w, ' ' ORDER BY w) FROM words", 'icu_copy')).toBe('a Ä B c z Z');
    expect(await sql("SELECT string_agg(w, ' ' ORDER BY w) FROM words_a", 'icu_copy')).toBe('a Ä');
  });

  it('an ICU locale the server lacks: exit 11 naming it and the closest ones, before anything is created', async () => {
    const r = await restore('icuMissing', 'icu_missing');
    expect(r.code).toBe(11);
    if (h.cluster.serverMajor >= 15)
      expect(r.stderr).toMatch(
        /error: The archive's database uses icu locale "de-QQ" \(closest there: de[-_][^)]*\), which postgresql:\/\/postgres@127\.0\.0\.1:\d+\/icu_missing does not have\. Nothing was restored\./,
      );
    expect(await h.databaseExists('icu_missing')).toBe(false);
    expect(await h.pgRestoreRuns()).toEqual([]);
  });

  it('a tablespace the target lacks: exit 11 naming it, before anything is created', async () => {
    const r = await restore('ts', 'ts_missing');
    expect(r.code).toBe(11);
    expect(r.stderr).toMatch(
      /error: The archive puts objects in a tablespace that postgresql:\/\/postgres@127\.0\.0\.1:\d+\/ts_missing does not have: fast_ssd\. Nothing was restored\./,
    );
    expect(r.stderr).toContain('--no-tablespaces');
    expect(await h.databaseExists('ts_missing')).toBe(false);
    expect(await h.pgRestoreRuns()).toEqual([]);
  });

  it('--no-tablespaces restores into the default tablespace and says so', async () => {
    const r = await restore('ts', 'ts_default', ['--no-tablespaces']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('--no-tablespaces: every object is restored into the default tablespace (the archive names fast_ssd).');
    expect(await sql("SELECT coalesce(reltablespace, 0) FROM pg_class WHERE relname = 'hot'", 'ts_default')).toBe('0');
    expect(await sql('SELECT count(*) FROM hot', 'ts_default')).toBe('10');
    expect((await h.pgRestoreRuns()).every((run) => run.argv.includes('--no-tablespaces'))).toBe(true);
    expect((await r.receipt()).tablespaces).toEqual({ named: ['fast_ssd'], ignored: true });
  });

  it('where the target has the tablespace, objects go into it', async () => {
    await sql(`CREATE TABLESPACE fast_ssd LOCATION '${tablespaceDir}'`);
    try {
      const r = await restore('ts', 'ts_named');
      expect(r.code, r.stderr).toBe(0);
      expect(await sql("SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace WHERE c.relname = 'hot'", 'ts_named')).toBe(
        'fast_ssd',
      );
    } finally {
      await h.dropDatabase('ts_named');
      await sql('DROP TABLESPACE fast_ssd');
    }
  });

  it('a tar archive (pg_dump -Ft) restores with one job, and svc says so', async () => {
    const r = await restore('tar', 'tar_copy', ['--jobs', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('A tar-format archive cannot be restored in parallel: pg_restore runs with one job instead of --jobs 2.');
    const runs = await h.pgRestoreRuns();
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect(run.argv).not.toContain('--jobs');
    expect(await describeDatabase(h.cluster, 'tar_copy')).toEqual(await describeDatabase(src, SEED_DATABASE));
  });

  it('a plain-SQL artifact is exit 11 naming the format, not the integrity code; nothing is created', async () => {
    const r = await restore('plain', 'plain_copy');
    expect(r.code).toBe(11);
    expect(r.stderr).toContain(
      "error: The artifact is a plain-SQL dump (pg_dump -Fp), not an archive pg_restore reads: svc restores pg_dump's custom (-Fc) and tar (-Ft) archives only. Nothing was restored.",
    );
    expect(await h.databaseExists('plain_copy')).toBe(false);
    expect(await h.pgRestoreRuns()).toEqual([]);
  });

  it('a directory-format archive packed with tar is exit 11 naming the format; nothing is created', async () => {
    const r = await restore('dir', 'dir_copy');
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('error: The artifact is a directory-format archive (pg_dump -Fd) packed with tar');
    expect(await h.databaseExists('dir_copy')).toBe(false);
    expect(await h.pgRestoreRuns()).toEqual([]);
  });
});
