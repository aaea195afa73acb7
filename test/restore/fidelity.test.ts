/**
 * Fidelity on a corpus nobody tuned svc to (issue 23 item 8, style habit 14): test/support/corpus.ts
 * generates a database of every object kind and awkward name we could think of, plus a LATIN1 one;
 * each is dumped with `pg_dump -Fc` and restored every way svc can (restore create into a new
 * database, restore create --in-place, restore drill --keep), through the built CLI. Source and
 * restore are then compared (test/support/corpus-compare.ts): the schema dump entry by entry,
 * every table's rows as an ordered hash, sequences, large objects, and the database's encoding,
 * locale, settings and comment. Each difference is named in the failure.
 *
 * The server is the one SVC_TEST_PG_BINDIR names (.ci/run runs this file on every major 14-18).
 * The machine's pg_dump cannot dump a newer server: then the archives come from a throwaway
 * PostgreSQL 15 cluster with the same corpus, and the schema entries are not compared on that
 * major; the server's own catalog description of every object still is, with the rows, sequences,
 * large objects and database properties.
 */
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSvc } from '../support/built-cli.js';
import { CORPUS_DATABASE_COMMENT, corpusSql, createCorpusDatabase, latin1CorpusSql } from '../support/corpus.js';
import { clusterDb, compare, fingerprint, keptDb, type Fingerprint } from '../support/corpus-compare.js';
import { processesIn } from '../support/drill-e2e.js';
import { drillApi, DRILLED } from '../support/drill-signals.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { BACKUP_ID, toolMajor, useRestoreHarness } from '../support/restore-harness.js';
import { artifactInfo, dumpDatabase, quoteIdent, type ArtifactInfo } from '../support/seed.js';
import type { ArtifactServer } from '../support/artifact-server.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/fidelity.test.ts skipped: ${skip}`);

const SEED = 20261126;

const UTF8_C = "ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'";
/** 1,000 tables with a serial key and a row each: 5,000 relations (table, sequence, key, TOAST table and index). */
const MANY_TABLES = 1000;
const MANY_RELATIONS_SQL = `DO $$ BEGIN FOR i IN 1..${MANY_TABLES} LOOP
  EXECUTE format('CREATE TABLE public.rel_%s (id serial PRIMARY KEY, t text); INSERT INTO public.rel_%s (t) VALUES (%L);', i, i, 'row ' || i);
END LOOP; END $$;`;

/** The database properties that are the operator's in place (cli-contract 7.11). */
const OPERATORS = ['settings', 'comment'];
const pick = (o: Record<string, string>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

interface Corpus {
  name: string;
  sql: string;
  /** CREATE DATABASE options of the source. */
  options: string;
  server: ArtifactServer;
  info: ArtifactInfo;
  source: Fingerprint;
}

describe.skipIf(!!skip)('fidelity: a generated corpus restored every way svc can equals its source', { timeout: 180_000 }, () => {
  const h = useRestoreHarness({ built: true });
  const corpora: Record<'utf8' | 'latin1', Corpus> = {} as never;
  let many: Pick<Corpus, 'server' | 'info'>;

  beforeAll(async () => {
    await chmod(h.scratch, 0o711);
    const specs = [
      { key: 'utf8', name: 'corpus_src', sql: corpusSql(SEED), options: "ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" },
      { key: 'latin1', name: 'corpus_latin1', sql: latin1CorpusSql(SEED), options: "ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C'" },
    ] as const;
    // pg_dump dumps no server newer than itself: then a PostgreSQL 15 cluster makes the archives.
    const dumpable = h.cluster.serverMajor <= (await toolMajor(join(h.cluster.binDir, 'pg_dump')));
    const dumper: PgCluster = dumpable ? h.cluster : await startCluster();
    try {
      for (const s of specs) {
        await createCorpusDatabase(h.cluster, s.name, s.sql, s.options);
        if (!dumpable) await createCorpusDatabase(dumper, s.name, s.sql, s.options);
        const file = join(h.scratch, `${s.name}.pgdump`);
        await dumpDatabase(dumper, s.name, file);
        corpora[s.key] = { ...s, server: await h.serve(file), info: await artifactInfo(file), source: await fingerprint(clusterDb(h.cluster, s.name), true) };
      }
      // Thousands of relations (issue 31 item 4): the dump only; the restore is compared by its catalog.
      await createCorpusDatabase(dumper, 'many_src', MANY_RELATIONS_SQL, UTF8_C);
      const file = join(h.scratch, 'many_src.pgdump');
      await dumpDatabase(dumper, 'many_src', file);
      many = { server: await h.serve(file), info: await artifactInfo(file) };
    } finally {
      if (!dumpable) await dumper.stop();
    }
  }, 300_000);

  /** Serves this corpus's archive as BACKUP_ID's artifact, with the drill's API reads. */
  async function serving(c: Corpus): Promise<void> {
    h.artifact = c.server;
    h.info = c.info;
    await h.reset();
    drillApi(h);
  }

  const expectSame = (what: string, differences: string[]) =>
    expect(differences, `${what} differs from its source in ${differences.length} way(s):\n${differences.join('\n')}`).toEqual([]);

  it('the corpus is what it claims: schemas with awkward names, partitions, inheritance, matviews, RLS, triggers, large objects, settings', async () => {
    const src = corpora.utf8.source;
    const schemaKeys = [...(src.schema?.keys() ?? [])].join('\n');
    if (src.schema) {
      for (const key of [
        'SCHEMA new line',
        'SCHEMA quo"te',
        'SCHEMA odd schema.v1',
        'TYPE Billing.Status',
        'DOMAIN app.email',
        'POLICY app.accounts tenant_isolation',
        'TRIGGER app.accounts Touch Accounts',
        'MATERIALIZED VIEW app.Stale Totals',
        'TABLE ATTACH Billing.Invoices 2025-Q1',
        'TABLE quo"te.cars',
      ]) {
        expect(schemaKeys).toContain(key);
      }
    }
    expect(Object.keys(src.data).filter((k) => k.startsWith('table ')).length).toBeGreaterThan(25);
    expect(Object.keys(src.data).filter((k) => k.startsWith('large object ')).length).toBe(4);
    expect(src.database).toMatchObject({ encoding: 'UTF8', settings: 'search_path=app, public; statement_timeout=5s', comment: CORPUS_DATABASE_COMMENT });
    expect(corpora.latin1.source.database.encoding).toBe('LATIN1');
    const rows = await h.cluster.psql(
      `SELECT (SELECT count(*) FROM app.accounts) + (SELECT count(*) FROM "Billing"."Invoices") + (SELECT count(*) FROM "odd schema.v1".events)`,
      'corpus_src',
    );
    expect(Number(rows)).toBeLessThan(5000);
  });

  it.each(['utf8', 'latin1'] as const)('restore create into a new database (%s corpus): schema, rows and database settings equal the source', async (key) => {
    const c = corpora[key];
    await serving(c);
    const target = `fidelity_new_${key}`;
    await h.dropDatabase(target);
    const workDir = await h.workDir();
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: { SVC_TARGET_DSN: h.dsn(target, true) } });
    expect(r.code, r.stderr).toBe(0);
    expect(await readdir(workDir)).toEqual([]);
    expectSame(`The new database "${target}" restored from ${c.name}`, compare(c.source, await fingerprint(clusterDb(h.cluster, target), false)));
  });

  /** `restore create --in-place --confirm` of the corpus into `target`; its schema and rows must equal the source's. */
  async function inPlace(c: Corpus, target: string): Promise<Fingerprint> {
    await serving(c);
    const workDir = await h.workDir();
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', workDir], {
      env: { SVC_TARGET_DSN: h.dsn(target, true) },
    });
    expect(r.code, r.stderr).toBe(0);
    const after = await fingerprint(clusterDb(h.cluster, target), false);
    // By design (cli-contract 7.11): in place, the database is not recreated and its settings and
    // comment stay the operator's; they are compared with the target's own below, not the archive's.
    expectSame(`The database "${target}" restored in place from ${c.name}`, compare(c.source, after, { skipDatabase: OPERATORS }));
    expect(pick(after.database, OPERATORS)).toEqual({ settings: 'work_mem=8MB', comment: "the operator's own" });
    return after;
  }

  /** The corpus in `target`, with the operator's own settings and comment, then `drift` (SQL in it). */
  async function existing(c: Corpus, target: string, drift: string): Promise<void> {
    await createCorpusDatabase(h.cluster, target, c.sql, c.options);
    await h.cluster.psql(
      `ALTER DATABASE ${target} RESET ALL; ALTER DATABASE ${target} SET work_mem = '8MB'; COMMENT ON DATABASE ${target} IS 'the operator''s own';`,
    );
    await h.cluster.psql(drift, target);
    expect(compare(c.source, await fingerprint(clusterDb(h.cluster, target), false)).length).toBeGreaterThan(0);
  }

  /** What an existing copy has drifted by before an in-place restore (the utf8 one without its range-partitioned table, see below). */
  const DRIFT = {
    utf8: `DROP TABLE "Billing"."Invoices" CASCADE; UPDATE app.accounts SET name = 'drifted' WHERE id < 1100; DELETE FROM "odd schema.v1".events WHERE id % 7 = 0;
           DROP MATERIALIZED VIEW app.never_refreshed; SELECT lo_unlink(424203); ALTER TABLE "quo""te".cars DISABLE TRIGGER ALL;`,
    latin1: `UPDATE "café"."Crème brûlée" SET "prénom" = 'dérivé' WHERE id < 10; DELETE FROM "café".par_pays WHERE n % 3 = 0; COMMENT ON TABLE "café"."Crème brûlée" IS NULL;`,
  };

  it.each(['utf8', 'latin1'] as const)(
    'restore create --in-place over a drifted copy of the same encoding (%s corpus): schema and rows equal the source; the database keeps its own settings',
    async (key) => {
      const c = corpora[key];
      await existing(c, `fidelity_in_place_${key}`, DRIFT[key]);
      await inPlace(c, `fidelity_in_place_${key}`);
    },
  );

  // Issue 31 item 3: pg_restore --clean cannot drop a partition's inherited primary key ("cannot drop
  // inherited constraint"); in place now restores beside the target and swaps, so nothing is dropped.
  it('restore create --in-place over a drifted copy holding the range-partitioned table with its primary key', async () => {
    const c = corpora.utf8;
    await existing(
      c,
      'fidelity_in_place_parts',
      `DELETE FROM "Billing"."Invoices" WHERE id % 10 = 0; UPDATE app.accounts SET name = 'drifted' WHERE id < 1100;`,
    );
    const keys = `SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND conrelid IN (SELECT inhrelid FROM pg_inherits)`;
    expect(Number(await h.cluster.psql(keys, 'fidelity_in_place_parts'))).toBeGreaterThan(0);
    await inPlace(c, 'fidelity_in_place_parts');
  });

  // Issue 31 item 4: one transaction that drops and recreates 5,000 relations runs out of lock slots
  // on a server with the default max_locks_per_transaction; the swap restores as a new database does.
  it(`restore create --in-place of ${MANY_TABLES.toLocaleString('en-US')} tables (5,000 relations) on a server with default lock settings`, async () => {
    expect(await h.cluster.psql('SHOW max_locks_per_transaction')).toBe('64');
    await createCorpusDatabase(
      h.cluster,
      'fidelity_many',
      `${MANY_RELATIONS_SQL} UPDATE public.rel_1 SET t = 'drifted'; CREATE TABLE incident_marker (id int);`,
      UTF8_C,
    );
    h.artifact = many.server;
    h.info = many.info;
    await h.reset();
    const workDir = await h.workDir();
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', workDir], {
      env: { SVC_TARGET_DSN: h.dsn('fidelity_many', true) },
    });
    expect(r.code, r.stderr).toBe(0);
    // The kept database is a second copy of 5,000 relations: this test has no use for it.
    await h.dropDatabase(await h.cluster.psql("SELECT datname FROM pg_database WHERE starts_with(datname, 'fidelity_many_svc_before_')"));
    const catalog = `SELECT json_build_object('relations', (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace),
      'rows', (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND reltuples = 1), 'rel_1', (SELECT t FROM public.rel_1), 'marker', to_regclass('public.incident_marker'))`;
    expect(JSON.parse(await h.cluster.psql(catalog, 'fidelity_many'))).toEqual({ relations: MANY_TABLES * 3, rows: MANY_TABLES, rel_1: 'row 1', marker: null });
  });

  it.each(['utf8', 'latin1'] as const)('restore drill --keep (%s corpus): the kept scratch database equals the source', async (key) => {
    const c = corpora[key];
    await serving(c);
    const dir = await mkdtemp(join(h.scratch, 'drill-'));
    await chmod(dir, 0o711);
    const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
    const r = await spawnSvc(['restore', 'drill', DRILLED, '--keep', '--json', '--work-dir', dir], {
      env: h.env({ TMPDIR: tmp, SVC_PG_BINDIR: h.cluster.serverBinDir }),
      timeoutMs: 120_000,
    });
    const stderr = String(r.stderr);
    h.record(String(r.stdout), stderr);
    const lines = [...stderr.matchAll(/^db_orders: kept: (.+)$/gm)].map((m) => m[1]!);
    const stop = lines.find((l) => l.includes('pg_ctl ') && l.includes(' stop '));
    let left: string[] = [];
    try {
      expect(r.exitCode, stderr).toBe(0);
      const psqlLine = lines.find((l) => l.startsWith('psql '));
      expect(psqlLine, stderr).toBeDefined();
      expectSame(`The drill's kept database restored from ${c.name}`, compare(c.source, await fingerprint(keptDb(psqlLine!, h.cluster.binDir), false)));
    } finally {
      if (stop) {
        const [command, remove] = stop.split('   # then: ');
        await execa('sh', ['-c', command!], { reject: false });
        if (remove) await execa('sh', ['-c', remove], { reject: false });
      }
      // Whatever the kept lines said, no server of this drill may outlive the case.
      left = processesIn(dir);
      for (const p of left) process.kill(Number(p.split(' ')[0]), 'SIGKILL');
      await rm(dir, { recursive: true, force: true });
      await rm(tmp, { recursive: true, force: true });
    }
    expect(left, `the kept cluster's stop line left processes: ${stop}`).toEqual([]);
  });

  it('names each difference: a restore that lost a setting, a row and a comment fails with all three', async () => {
    const c = corpora.utf8;
    const target = 'fidelity_broken';
    await createCorpusDatabase(h.cluster, target, c.sql, c.options);
    await h.cluster.psql(`ALTER DATABASE ${target} RESET search_path`);
    await h.cluster.psql(
      `COMMENT ON TABLE app.accounts IS NULL; REFRESH MATERIALIZED VIEW app."Stale Totals"; DELETE FROM ${quoteIdent('new\nline')}.${quoteIdent('line\nbreak')} WHERE k LIKE 'alpha%';`,
      target,
    );
    const found = compare(c.source, await fingerprint(clusterDb(h.cluster, target), false));
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^database: "settings" differs: source "search_path=app, public; statement_timeout=5s", restored "statement_timeout=5s"$/),
        expect.stringMatching(/^rows: "table \\"new\\nline\\"\.\\"line\\nbreak\\"" differs/),
        expect.stringMatching(/^catalog: "comment on table app.accounts" missing from the restore$/),
        ...(c.source.schema ? [expect.stringMatching(/^schema entry: "COMMENT app.TABLE accounts" missing from the restore$/)] : []),
      ]),
    );
    expect(found, found.join('\n')).toHaveLength(c.source.schema ? 4 : 3);
  });
});
