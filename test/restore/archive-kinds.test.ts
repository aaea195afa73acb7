/**
 * The object check after pg_restore (cli-contract 7.7) against archives a real pg_dump 15 wrote: a
 * materialized view (its DATA entry is not a view in a schema named DATA), names with spaces, quotes,
 * dots, newlines and non-ASCII characters in schema, table, index and owner, and every kind of TOC
 * entry pg_dump writes for a database a superuser can set up on a stock server. Each restore must
 * succeed and count every relation of the archive.
 */
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseTocListing, relationEntries } from '../../src/restore/archive/toc.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { artifactInfo, dumpDatabase, quoteIdent } from '../support/seed.js';
import { BACKUP_ID, useRestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/archive-kinds.test.ts skipped: ${skip}`);

/** The defect as the review saw it: one table, one materialized view. */
const MATVIEW_SQL = `
CREATE TABLE t (id int PRIMARY KEY, v text);
INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 50) g;
CREATE MATERIALIZED VIEW mv AS SELECT id, upper(v) AS v FROM t;`;

/** Names pg_restore -l prints unquoted, so that splitting on spaces cannot read them. */
const AWKWARD_NAMES_SQL = `
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'owner with space') THEN CREATE ROLE "owner with space"; END IF; END $$;
CREATE SCHEMA "Sales 2024";
CREATE SCHEMA "DATA";
CREATE SCHEMA "a.b";
CREATE SCHEMA "ünïcødé ßchema";
CREATE TABLE "Sales 2024"."my table" (a int, "b c" text);
INSERT INTO "Sales 2024"."my table" VALUES (1, 'x');
ALTER TABLE "Sales 2024"."my table" OWNER TO "owner with space";
CREATE INDEX "idx with space" ON "Sales 2024"."my table" (a);
CREATE TABLE "DATA".x (a int);
CREATE TABLE "DATA"."TABLE" (a int);
CREATE TABLE "a.b"."c""d.e" (a int);
CREATE TABLE "ünïcødé ßchema"."tablé 表" (a int);
CREATE TABLE "line
break" (a int);
CREATE MATERIALIZED VIEW "Sales 2024"."mv 2" AS SELECT a FROM "Sales 2024"."my table";
CREATE VIEW "a.b"."v'q" AS SELECT 1 AS one;
CREATE SEQUENCE "Sales 2024"."seq x";`;

/** Every TOC entry kind pg_dump 15 writes for what a superuser can create on a stock Debian server. */
const EVERY_KIND_SQL = `
CREATE EXTENSION pgcrypto;
CREATE SCHEMA app;
COMMENT ON SCHEMA app IS 'the application';
CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE app.pair AS (a int, b text);
CREATE TYPE app.floatrange AS RANGE (subtype = float8);
CREATE DOMAIN app.positive AS int CHECK (VALUE > 0);
CREATE FUNCTION app.add_one(i int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT i + 1';
CREATE PROCEDURE app.noop() LANGUAGE sql AS 'SELECT 1';
CREATE AGGREGATE app.total(int) (SFUNC = int4pl, STYPE = int, INITCOND = '0');
CREATE FUNCTION app.ne(a app.pair, b app.pair) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT a.a <> b.a';
CREATE OPERATOR app.<!> (LEFTARG = app.pair, RIGHTARG = app.pair, FUNCTION = app.ne);
CREATE OPERATOR FAMILY app.fam USING btree;
CREATE OPERATOR CLASS app.int_ops FOR TYPE int USING btree FAMILY app.fam AS OPERATOR 1 <, FUNCTION 1 btint4cmp(int, int);
CREATE COLLATION app.c_coll (locale = 'C');
CREATE CONVERSION app.conv FOR 'LATIN1' TO 'UTF8' FROM iso8859_1_to_utf8;
CREATE FUNCTION app.pair_text(app.pair) RETURNS text LANGUAGE sql AS 'SELECT $1.b';
CREATE CAST (app.pair AS text) WITH FUNCTION app.pair_text(app.pair);
CREATE TEXT SEARCH DICTIONARY app.simple_dict (TEMPLATE = pg_catalog.simple);
CREATE TEXT SEARCH CONFIGURATION app.tsconf (COPY = pg_catalog.simple);
CREATE ACCESS METHOD app_heap TYPE TABLE HANDLER heap_tableam_handler;
CREATE FOREIGN DATA WRAPPER app_fdw;
CREATE SERVER app_server FOREIGN DATA WRAPPER app_fdw;
CREATE USER MAPPING FOR postgres SERVER app_server;
CREATE FOREIGN TABLE app.remote (a int) SERVER app_server;
CREATE TABLE app.customers (id serial PRIMARY KEY, email text UNIQUE, mood app.mood DEFAULT 'ok', n app.positive);
CREATE TABLE app.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, customer_id int REFERENCES app.customers(id), amount numeric CHECK (amount >= 0), placed date);
ALTER TABLE app.orders ADD CONSTRAINT later CHECK (amount < 1e9) NOT VALID;
CREATE TABLE app.events (id int, at date) PARTITION BY RANGE (at);
CREATE TABLE app.events_2026 PARTITION OF app.events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE INDEX ON app.events (at);
CREATE UNLOGGED TABLE app.scratch (a int);
CREATE TABLE app.other_am (a int) USING app_heap;
INSERT INTO app.customers (email, n) SELECT 'c' || g || '@example.test', g FROM generate_series(1, 20) g;
INSERT INTO app.orders (customer_id, amount, placed) SELECT 1 + g % 20, g, date '2026-01-01' + g FROM generate_series(1, 100) g;
INSERT INTO app.events SELECT g, date '2026-03-01' + g FROM generate_series(1, 10) g;
CREATE VIEW app.big_orders AS SELECT * FROM app.orders WHERE amount > 50;
CREATE MATERIALIZED VIEW app.order_totals AS SELECT customer_id, sum(amount) FROM app.orders GROUP BY 1;
CREATE INDEX ON app.order_totals (customer_id);
CREATE STATISTICS app.stats ON customer_id, amount FROM app.orders;
CREATE FUNCTION app.touch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$;
CREATE TRIGGER touch BEFORE UPDATE ON app.customers FOR EACH ROW EXECUTE FUNCTION app.touch();
CREATE FUNCTION app.on_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$BEGIN END$$;
CREATE EVENT TRIGGER app_ddl ON ddl_command_end EXECUTE FUNCTION app.on_ddl();
CREATE RULE no_delete AS ON DELETE TO app.scratch DO INSTEAD NOTHING;
ALTER TABLE app.customers ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON app.customers USING (true);
CREATE PUBLICATION app_pub FOR TABLE app.customers;
CREATE PUBLICATION schema_pub FOR TABLES IN SCHEMA app;
CREATE SUBSCRIPTION app_sub CONNECTION 'host=127.0.0.1 port=1 dbname=none' PUBLICATION app_pub WITH (connect = false, slot_name = NONE, enabled = false);
SELECT lo_from_bytea(0, 'large object bytes');
GRANT SELECT ON app.customers TO PUBLIC;
ALTER DEFAULT PRIVILEGES IN SCHEMA app GRANT SELECT ON TABLES TO PUBLIC;
COMMENT ON TABLE app.customers IS 'who buys';`;

describe.skipIf(!!skip)('the object check reads pg_restore -l as pg_restore writes it', () => {
  const h = useRestoreHarness();

  /** A database made by `sql`, dumped with pg_dump -Fc and served as the backup's artifact. */
  async function artifactOf(source: string, sql: string): Promise<{ listing: string }> {
    await h.dropDatabase(source);
    await h.cluster.psql(`CREATE DATABASE ${quoteIdent(source)}`);
    await h.cluster.psql(sql, source);
    const file = join(h.scratch, `${source}.pgdump`);
    await dumpDatabase(h.cluster, source, file);
    const info = await artifactInfo(file);
    const server = await h.serve(file);
    Object.assign(h.coords, { presignedS3Url: server.url, expectedSizeBytes: info.sizeBytes, expectedSha256: info.sha256 });
    h.info = { ...h.info, sizeBytes: info.sizeBytes, sha256: info.sha256 };
    const { execa } = await import('execa');
    return { listing: (await execa(h.realPgRestore, ['-l', file])).stdout };
  }

  async function restoreInto(database: string, extra: string[] = []) {
    await h.dropDatabase(database);
    const workDir = await h.workDir();
    const receiptPath = join(workDir, '..', `${database}.receipt.json`);
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receiptPath, ...extra], {
      env: { SVC_TARGET_DSN: h.dsn(database, true) },
    });
    return { ...r, receipt: JSON.parse(await readFile(receiptPath, 'utf8')) };
  }

  it('a table and a materialized view: restored, exit 0, and the matview counted (not "view DATA.public mv")', async () => {
    await artifactOf('kinds_mv_src', MATVIEW_SQL);
    const r = await restoreInto('kinds_mv');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('missing');
    expect(r.receipt.outcome).toBe('restored');
    // The primary key's index is a CONSTRAINT entry, not an INDEX one.
    expect(r.receipt.objects).toEqual({ TABLE: 1, VIEW: 0, 'MATERIALIZED VIEW': 1, SEQUENCE: 0, INDEX: 0 });
    expect(r.receipt.tableRowEstimates).toEqual({ 'public.mv': 50, 'public.t': 50 });
  });

  it('schemas, tables, indexes and owners with spaces, quotes, dots, a newline and non-ASCII: every one found', async () => {
    const { listing } = await artifactOf('kinds_names_src', AWKWARD_NAMES_SQL);
    // The listing really is ambiguous when split on spaces.
    expect(listing).toContain('TABLE Sales 2024 my table owner with space');
    expect(listing).toMatch(/TABLE DATA x postgres/);
    const r = await restoreInto('kinds_names');
    expect(r.code, r.stderr).toBe(0);
    expect(r.receipt.objects).toEqual({ TABLE: 6, VIEW: 1, 'MATERIALIZED VIEW': 1, SEQUENCE: 1, INDEX: 1 });
    expect(Object.keys(r.receipt.tableRowEstimates).sort()).toEqual(
      ['DATA.TABLE', 'DATA.x', 'Sales 2024.mv 2', 'Sales 2024.my table', 'a.b.c"d.e', 'public.line\nbreak', 'ünïcødé ßchema.tablé 表'].sort(),
    );
    // In place too: the same check in the new database beside the target, before the swap.
    const again = await restoreInto('kinds_names_inplace', []);
    expect(again.code, again.stderr).toBe(0);
    const inPlace = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', await h.workDir()], {
      env: { SVC_TARGET_DSN: h.dsn('kinds_names_inplace', true) },
    });
    expect(inPlace.code, inPlace.stderr).toBe(0);
  });

  it('every TOC entry kind pg_dump 15 writes: the restore succeeds and every relation is counted', async () => {
    const { listing } = await artifactOf('kinds_all_src', EVERY_KIND_SQL);
    const descs = new Set(parseTocListing(listing).entries.map((e) => e.desc));
    for (const kind of [
      'EXTENSION',
      'SCHEMA',
      'COMMENT',
      'TYPE',
      'DOMAIN',
      'FUNCTION',
      'PROCEDURE',
      'AGGREGATE',
      'OPERATOR',
      'OPERATOR FAMILY',
      'OPERATOR CLASS',
      'COLLATION',
      'CONVERSION',
      'CAST',
      'TEXT SEARCH DICTIONARY',
      'TEXT SEARCH CONFIGURATION',
      'ACCESS METHOD',
      'FOREIGN DATA WRAPPER',
      'SERVER',
      'USER MAPPING',
      'FOREIGN TABLE',
      'TABLE',
      'TABLE ATTACH',
      'TABLE DATA',
      'SEQUENCE',
      'SEQUENCE OWNED BY',
      'SEQUENCE SET',
      'DEFAULT',
      'CONSTRAINT',
      'FK CONSTRAINT',
      'CHECK CONSTRAINT',
      'INDEX',
      'INDEX ATTACH',
      'VIEW',
      'MATERIALIZED VIEW',
      'MATERIALIZED VIEW DATA',
      'STATISTICS',
      'TRIGGER',
      'EVENT TRIGGER',
      'RULE',
      'POLICY',
      'ROW SECURITY',
      'PUBLICATION',
      'PUBLICATION TABLE',
      'PUBLICATION TABLES IN SCHEMA',
      'SUBSCRIPTION',
      'BLOB',
      'BLOBS',
      'ACL',
      'DEFAULT ACL',
    ]) {
      expect(descs, `pg_dump wrote no ${kind} entry`).toContain(kind);
    }
    const relations = relationEntries(parseTocListing(listing));
    const r = await restoreInto('kinds_all');
    expect(r.code, r.stderr).toBe(0);
    const counted = Object.values(r.receipt.objects as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(counted).toBe(relations.filter((e) => e.desc !== 'FOREIGN TABLE').length);
    expect(r.receipt.objects['MATERIALIZED VIEW']).toBe(1);
  });
});
