/**
 * Archives in any server encoding (cli-contract 7.18, issue 31 item 1): a LATIN1, a WIN1252, an
 * EUC_JP and an SQL_ASCII database, each with a schema, a table, a column, an index, a sequence and a
 * view whose names are not ASCII, are dumped as pg_dump dumps them by default (in the database's own
 * encoding) and restored every way svc can, through the built CLI: into a new database, in place
 * over a database of the same encoding, and by a drill (with rows_match and a SQL check). Each must
 * exit 0 with the data reached through those names equal to the source's. The SQL_ASCII database
 * holds the byte 0xe9 in its names (as a LATIN1 client writes it) and a name in UTF-8 bytes.
 *
 * The data is compared through `public.probe()`, restored with the rest: the md5 of the values read
 * through the non-ASCII names, computed by the server in the database's own bytes.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSvc } from '../support/built-cli.js';
import { processesIn } from '../support/drill-e2e.js';
import { drillApi, DRILLED } from '../support/drill-signals.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, useRestoreHarness } from '../support/restore-harness.js';
import { artifactInfo, dumpDatabase, type ArtifactInfo } from '../support/seed.js';
import type { ArtifactServer } from '../support/artifact-server.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/encodings.test.ts skipped: ${skip}`);

/** Objects named `schema`.`table` (`column`), an index, a serial's sequence, a view, and probe(). */
function objects(schema: string, table: string, column: string, values: string[]): string {
  const q = (s: string) => `"${s.replaceAll('"', '""')}"`;
  return [
    `CREATE SCHEMA ${q(schema)};`,
    `CREATE TABLE ${q(schema)}.${q(table)} (id serial PRIMARY KEY, ${q(column)} text NOT NULL);`,
    `CREATE INDEX ${q(`${table}_${column}_idx`)} ON ${q(schema)}.${q(table)} (${q(column)});`,
    `CREATE VIEW ${q(schema)}.${q(`vue ${table}`)} AS SELECT ${q(column)} FROM ${q(schema)}.${q(table)};`,
    `INSERT INTO ${q(schema)}.${q(table)} (${q(column)}) VALUES ${values.map((v) => `('${v}')`).join(', ')};`,
    `CREATE FUNCTION public.probe() RETURNS text LANGUAGE sql STABLE AS $$ SELECT count(*) || ':' || md5(string_agg(${q(column)}, ',' ORDER BY id)) FROM ${q(schema)}.${q(`vue ${table}`)} JOIN ${q(schema)}.${q(table)} USING (${q(column)}) $$;`,
  ].join('\n');
}

/** The byte 0xe9 (é in LATIN1) in names of an SQL_ASCII database, written by the server itself; the script stays ASCII. */
const SQL_ASCII_OBJECTS = `
DO $$
DECLARE e text := convert_from('\\xe9', 'SQL_ASCII'); s text := 'sch' || e || 'ma'; t text := 'caf' || e; c text := 'pr' || e || 'nom';
BEGIN
  EXECUTE format('CREATE SCHEMA %I', s);
  EXECUTE format('CREATE TABLE %I.%I (id serial PRIMARY KEY, %I text NOT NULL)', s, t, c);
  EXECUTE format('CREATE INDEX %I ON %I.%I (%I)', t || '_idx', s, t, c);
  EXECUTE format('CREATE VIEW %I.%I AS SELECT %I FROM %I.%I', s, 'vue ' || t, c, s, t);
  EXECUTE format('INSERT INTO %I.%I (%I) VALUES (%L), (%L)', s, t, c, 'Zo' || convert_from('\\xeb', 'SQL_ASCII'), 'caf' || e);
  EXECUTE format('CREATE FUNCTION public.probe() RETURNS text LANGUAGE sql STABLE AS %L',
    format('SELECT count(*) || '':'' || md5(string_agg(%I, '','' ORDER BY id)) FROM %I.%I JOIN %I.%I USING (%I)', c, s, 'vue ' || t, s, t, c));
END $$;
CREATE TABLE "naïve" (v text);
INSERT INTO "naïve" VALUES ('déjà');`;

const CASES = [
  { key: 'latin1', encoding: 'LATIN1', sql: objects('école', 'café', 'prénom', ['Zoë', 'Chloé', 'Ægir']) },
  { key: 'win1252', encoding: 'WIN1252', sql: objects('école €', 'café€', 'prénom', ['Zoë', '€ 5', 'Œuvre']) },
  { key: 'euc_jp', encoding: 'EUC_JP', sql: objects('会計', '請求書', '金額', ['日本語', 'カタカナ', '漢字']) },
  { key: 'sql_ascii', encoding: 'SQL_ASCII', sql: SQL_ASCII_OBJECTS },
] as const;
type Key = (typeof CASES)[number]['key'];

describe.skipIf(!!skip)('archives of LATIN1, WIN1252, EUC_JP and SQL_ASCII databases with names beyond ASCII', { timeout: 180_000 }, () => {
  const h = useRestoreHarness({ built: true });
  const archives = {} as Record<Key, { server: ArtifactServer; info: ArtifactInfo; probe: string; options: string }>;

  beforeAll(async () => {
    await chmod(h.scratch, 0o711);
    for (const c of CASES) {
      const options = `TEMPLATE template0 ENCODING '${c.encoding}' LOCALE 'C'`;
      const source = `enc_src_${c.key}`;
      await h.cluster.psql(`CREATE DATABASE ${source} ${options}`);
      // Through a UTF-8 client (the cluster's psql), as a person would type it.
      await h.cluster.psql(c.sql, source);
      const file = join(h.scratch, `${source}.pgdump`);
      // As pg_dump dumps by default: in the database's own encoding.
      await dumpDatabase(h.cluster, source, file, ['--encoding', c.encoding]);
      archives[c.key] = { server: await h.serve(file), info: await artifactInfo(file), probe: await h.cluster.psql('SELECT public.probe()', source), options };
    }
    expect(archives.sql_ascii.probe).toMatch(/^2:[0-9a-f]{32}$/);
  }, 300_000);

  async function serving(key: Key): Promise<void> {
    h.artifact = archives[key].server;
    h.info = archives[key].info;
    await h.reset();
    drillApi(h);
  }

  /** A drill of the served archive with one `--check` (`name`: a query that returns no row): every check passes, and no process is left in its work dir. */
  async function drillPassesWith(name: string, sql: string): Promise<void> {
    const dir = await mkdtemp(join(h.scratch, 'drill-'));
    await chmod(dir, 0o711);
    const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
    const check = join(tmp, `${name}.sql`);
    writeFileSync(check, `-- check: ${name}\n${sql}\n`);
    await chmod(tmp, 0o755);
    try {
      const r = await spawnSvc(['restore', 'drill', DRILLED, '--json', '--check', check, '--work-dir', dir], {
        env: h.env({ TMPDIR: tmp, SVC_PG_BINDIR: h.cluster.serverBinDir }),
        timeoutMs: 120_000,
      });
      const stderr = String(r.stderr);
      h.record(String(r.stdout), stderr);
      expect(r.exitCode, stderr).toBe(0);
      const db = JSON.parse(String(r.stdout)).drill.databases[0];
      expect(db.checks.map((c: { name: string; status: string; detail?: string }) => [c.name, c.status, c.status === 'passed' ? '' : c.detail])).toEqual(
        ['backup_selected', 'artifact_verified', 'restore_clean', 'objects_present', 'data_present', 'rows_match', `check:${name}`].map((n) => [
          n,
          'passed',
          '',
        ]),
      );
    } finally {
      expect(processesIn(dir)).toEqual([]);
      await rm(dir, { recursive: true, force: true });
      await rm(tmp, { recursive: true, force: true });
    }
  }

  it.each(CASES.map((c) => c.key))('restore create into a new database (%s): exit 0, every object and row there', async (key) => {
    await serving(key);
    const target = `enc_new_${key}`;
    await h.dropDatabase(target);
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir()], { env: { SVC_TARGET_DSN: h.dsn(target, true) } });
    expect(r.code, r.stderr).toBe(0);
    expect(await h.cluster.psql('SELECT public.probe()', target)).toBe(archives[key].probe);
    expect(await h.cluster.psql(`SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = '${target}'`)).toBe(
      CASES.find((c) => c.key === key)!.encoding,
    );
  });

  it.each(CASES.map((c) => c.key))("restore create --in-place over a database of the same encoding (%s): exit 0, the backup's rows there", async (key) => {
    await serving(key);
    const target = `enc_in_place_${key}`;
    await h.dropDatabase(target);
    await h.cluster.psql(`CREATE DATABASE ${target} ${archives[key].options}`);
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', await h.workDir()], {
      env: { SVC_TARGET_DSN: h.dsn(target, true) },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await h.cluster.psql('SELECT public.probe()', target)).toBe(archives[key].probe);
  });

  it('an SQL_ASCII archive whose names are not UTF-8: every table ANALYZEd, its row estimate under the name as the archive spells it', async () => {
    await serving('sql_ascii');
    const target = 'enc_analyzed_sql_ascii';
    await h.dropDatabase(target);
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--json', '--work-dir', await h.workDir()], {
      env: { SVC_TARGET_DSN: h.dsn(target, true) },
    });
    expect(r.code, r.stderr).toBe(0);
    // caf\xe9 and na\xc3\xafve, byte for byte; two rows in café are too few for autovacuum to analyse it first.
    expect(
      await h.cluster.psql(
        "SELECT string_agg(encode(relname::bytea, 'hex'), ',' ORDER BY relname) FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL",
        target,
      ),
    ).toBe('636166e9,6e61c3af7665');
    // Each byte one character, as the listing's names are read (archive-encoding.ts).
    expect(JSON.parse(r.stdout).execution.receipt.tableRowEstimates).toEqual({ 'public.na\u00c3\u00afve': 1, 'sch\u00e9ma.caf\u00e9': 2 });
  });

  it('a LATIN1 archive with one of its objects missing after pg_restore: exit 11 naming that one alone, as the archive spells it', async () => {
    await serving('latin1');
    const target = 'enc_missing_latin1';
    await h.dropDatabase(target);
    // The index école.café_prénom_idx left out of pg_restore's list (LC_ALL=C: a dot is any byte of the LATIN1 listing).
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir()], {
      env: { SVC_TARGET_DSN: h.dsn(target, true), SVC_TEST_OMIT: 'INDEX .cole caf._pr.nom_idx' },
    });
    expect(r.code, r.stderr).toBe(11);
    expect(r.stderr).toContain('The restore finished, but 1 object(s) of the archive are missing from the target: index école.café_prénom_idx.');
  });

  it("restore drill of an SQL_ASCII archive whose extension lives in a schema named with the byte 0xe9: the superuser's set-up reaches the database byte for byte", async () => {
    const source = 'enc_src_sql_ascii_ext';
    await h.cluster.psql(`CREATE DATABASE ${source} TEMPLATE template0 ENCODING 'SQL_ASCII' LOCALE 'C'`);
    // The schema ext\xe9 holds pg_trgm, whose comment ends in caf\xe9; a table's index uses its operator class; s\xe9cret() is not PUBLIC's.
    await h.cluster.psql(
      `DO $$
DECLARE s text := 'ext' || convert_from('\\xe9', 'SQL_ASCII');
BEGIN
  EXECUTE format('CREATE SCHEMA %I', s);
  EXECUTE format('CREATE EXTENSION pg_trgm WITH SCHEMA %I', s);
  EXECUTE format('COMMENT ON EXTENSION pg_trgm IS %L', 'caf' || convert_from('\\xe9', 'SQL_ASCII'));
  CREATE TABLE public.words (w text);
  INSERT INTO public.words VALUES ('alpha'), ('beta');
  EXECUTE format('CREATE INDEX words_trgm ON public.words USING gin (w %I.gin_trgm_ops)', s);
  EXECUTE format('CREATE FUNCTION public.%I() RETURNS int LANGUAGE sql AS ''SELECT 1''', 's' || convert_from('\\xe9', 'SQL_ASCII') || 'cret');
  EXECUTE format('REVOKE EXECUTE ON FUNCTION public.%I() FROM PUBLIC', 's' || convert_from('\\xe9', 'SQL_ASCII') || 'cret');
END $$;`,
      source,
    );
    const file = join(h.scratch, `${source}.pgdump`);
    await dumpDatabase(h.cluster, source, file, ['--encoding', 'SQL_ASCII']);
    h.artifact = await h.serve(file);
    h.info = await artifactInfo(file);
    await h.reset();
    drillApi(h);
    await drillPassesWith(
      'extension',
      "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm' AND (encode(convert_to(n.nspname, 'SQL_ASCII'), 'hex') <> '657874e9' OR encode(convert_to(obj_description(e.oid, 'pg_extension'), 'SQL_ASCII'), 'hex') <> '636166e9')" +
        " UNION ALL SELECT 'PUBLIC may run it' FROM pg_proc p WHERE encode(convert_to(p.proname, 'SQL_ASCII'), 'hex') = '73e963726574' AND (p.proacl IS NULL OR EXISTS (SELECT 1 FROM aclexplode(p.proacl) a WHERE a.grantee = 0))",
    );
  });

  it.each(CASES.map((c) => c.key))('restore drill (%s): every check passes, rows_match and a check through the names included', async (key) => {
    await serving(key);
    await drillPassesWith('names', `SELECT public.probe() AS probe WHERE public.probe() IS DISTINCT FROM '${archives[key].probe}'`);
  });
});
