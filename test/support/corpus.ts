/**
 * A corpus nobody tuned svc to (issue 23 item 8, style habit 14): a deterministic, seeded generator
 * of a database that uses the object kinds and awkward names real databases have, small enough (a
 * few thousand rows) for `npm test`. The same seed gives byte-identical SQL, hence identical data.
 *
 * - `corpusSql(seed)`: many schemas; mixed-case names and names with spaces, dots, quotes and a
 *   newline; range, list and default partitions; inheritance (with a parent column added after the
 *   child, the case whose column order pg_dump rewrites); a populated, a stale and an unpopulated
 *   materialized view; domains, enums, ranges; row-level security policies (no roles named);
 *   triggers (one disabled); generated and identity columns; large objects; comments on most
 *   kinds; database-level settings and the database's comment.
 * - `latin1CorpusSql(seed)`: a smaller one for a LATIN1 database: text beyond ASCII in values, in a
 *   table's and a column's name, and as a list partition key.
 *
 * No extension beyond plpgsql and no role (other tests cover `TO authenticated` and extensions).
 */
import { quoteIdent } from './seed.js';
import type { PgCluster } from './pg-cluster.js';

/** mulberry32: a small seeded PRNG, so a seed always gives the same corpus. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;
const q = quoteIdent;
const qq = (schema: string, name: string) => `${q(schema)}.${q(name)}`;

/** The schemas with awkward names, exported so tests can name them in messages. */
export const AWKWARD_SCHEMAS = ['Billing', 'odd schema.v1', 'quo"te', 'new\nline'] as const;

/** The database-level settings every corpus database carries (ALTER DATABASE ... SET). */
export const CORPUS_DATABASE_SETTINGS = ['search_path=app, public', 'statement_timeout=5s'];

/** The comment on every corpus database. */
export const CORPUS_DATABASE_COMMENT = 'the corpus database: its settings and this comment must survive a restore';

/** The statements that give `database` its settings and comment; run last, they must not steer the generator. */
export function databaseSettingsSql(database: string, comment: string): string {
  return [
    `ALTER DATABASE ${q(database)} SET search_path = app, public;`,
    `ALTER DATABASE ${q(database)} SET statement_timeout = '5s';`,
    `COMMENT ON DATABASE ${q(database)} IS ${lit(comment)};`,
  ].join('\n');
}

export function corpusSql(seed: number): string {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const words = ['alpha', 'Beta', 'gamma delta', "o'brien", 'x.y', 'Zeta', 'eta"q', 'ünïcödé', 'tab\there', ''];
  const out: string[] = [];
  const add = (...s: string[]) => out.push(...s);

  add(
    'SET client_min_messages = warning;',
    'CREATE SCHEMA app;',
    ...AWKWARD_SCHEMAS.map((s) => `CREATE SCHEMA ${q(s)};`),
    `COMMENT ON SCHEMA app IS 'the application''s schema';`,
    `COMMENT ON SCHEMA ${q('new\nline')} IS ${lit('a schema whose name has a newline')};`,

    // Types: a domain with a check, an enum with awkward labels, a custom range, a composite.
    `CREATE DOMAIN app.email AS text CHECK (VALUE ~ '^[^@]+@[^@]+$');`,
    `COMMENT ON DOMAIN app.email IS 'an address with one @';`,
    `CREATE DOMAIN app.positive_cents AS bigint NOT NULL DEFAULT 0 CHECK (VALUE >= 0);`,
    `CREATE TYPE "Billing"."Status" AS ENUM ('new', 'Paid', 'void', 'with space', 'quo''te');`,
    `CREATE TYPE app.floatrange AS RANGE (subtype = float8, subtype_diff = float8mi);`,
    `CREATE TYPE app.address AS (street text, "Zip Code" text);`,

    // Identity (always and by default), a stored generated column, a domain column, RLS.
    `CREATE TABLE app.accounts (
       id int GENERATED ALWAYS AS IDENTITY (START WITH 1000 INCREMENT BY 7) PRIMARY KEY,
       name text NOT NULL,
       email app.email UNIQUE,
       tenant text NOT NULL,
       balance app.positive_cents,
       home app.address,
       name_lower text GENERATED ALWAYS AS (lower(name)) STORED,
       "Created At" timestamptz NOT NULL,
       updated_at timestamptz
     );`,
    `COMMENT ON TABLE app.accounts IS 'who pays';`,
    `COMMENT ON COLUMN app.accounts.name_lower IS 'generated: lower(name)';`,
    `CREATE INDEX accounts_tenant_lower_idx ON app.accounts (tenant, lower(name)) WHERE balance > 0;`,
    `ALTER TABLE app.accounts ENABLE ROW LEVEL SECURITY;`,
    `ALTER TABLE app.accounts FORCE ROW LEVEL SECURITY;`,
    `CREATE POLICY tenant_isolation ON app.accounts USING (tenant = current_setting('app.tenant', true));`,
    `CREATE POLICY "No Negative" ON app.accounts AS RESTRICTIVE FOR UPDATE USING (true) WITH CHECK (balance >= 0);`,
    `COMMENT ON POLICY tenant_isolation ON app.accounts IS 'one tenant per session';`,

    // A trigger function and triggers, one of them disabled.
    `CREATE FUNCTION "Billing".touch() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN NEW.updated_at := '2030-01-01 00:00:00+00'; RETURN NEW; END $$;`,
    `COMMENT ON FUNCTION "Billing".touch() IS 'sets updated_at';`,
    `CREATE TRIGGER "Touch Accounts" BEFORE UPDATE ON app.accounts FOR EACH ROW EXECUTE FUNCTION "Billing".touch();`,
    `CREATE TRIGGER touch_disabled BEFORE INSERT ON app.accounts FOR EACH ROW WHEN (NEW.tenant = 'never') EXECUTE FUNCTION "Billing".touch();`,
    `ALTER TABLE app.accounts DISABLE TRIGGER touch_disabled;`,
    `COMMENT ON TRIGGER "Touch Accounts" ON app.accounts IS 'keeps updated_at';`,
    `CREATE FUNCTION app.cents(n numeric) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT (n * 100)::bigint $$;`,

    // Range partitions (with a default), identity on a partitioned table, an enum column, a cross-schema FK.
    `CREATE TABLE "Billing"."Invoices" (
       id bigint GENERATED BY DEFAULT AS IDENTITY,
       account_id int NOT NULL REFERENCES app.accounts (id),
       issued date NOT NULL,
       amount numeric(12, 2) NOT NULL CHECK (amount >= 0),
       status "Billing"."Status" NOT NULL DEFAULT 'new',
       period tstzrange,
       PRIMARY KEY (id, issued)
     ) PARTITION BY RANGE (issued);`,
    ...[1, 4, 7, 10].map(
      (m) =>
        `CREATE TABLE "Billing"."Invoices 2025-Q${(m + 2) / 3}" PARTITION OF "Billing"."Invoices" FOR VALUES FROM ('2025-${String(m).padStart(2, '0')}-01') TO ('${m === 10 ? '2026-01' : `2025-${String(m + 3).padStart(2, '0')}`}-01');`,
    ),
    `CREATE TABLE "Billing"."Invoices.default" PARTITION OF "Billing"."Invoices" DEFAULT;`,
    `CREATE INDEX invoices_status_idx ON "Billing"."Invoices" (status);`,
    `COMMENT ON TABLE "Billing"."Invoices" IS 'range-partitioned by quarter';`,

    // List partitions on text, one holding several values, plus a default.
    `CREATE TABLE ${qq('odd schema.v1', 'events')} (
       id int NOT NULL,
       kind text NOT NULL,
       payload jsonb,
       during app.floatrange,
       at timestamptz NOT NULL
     ) PARTITION BY LIST (kind);`,
    `CREATE TABLE ${qq('odd schema.v1', 'events: login')} PARTITION OF ${qq('odd schema.v1', 'events')} FOR VALUES IN ('login', 'Login');`,
    `CREATE TABLE ${qq('odd schema.v1', 'events.pay')} PARTITION OF ${qq('odd schema.v1', 'events')} FOR VALUES IN ('pay');`,
    `CREATE TABLE ${qq('odd schema.v1', 'events other')} PARTITION OF ${qq('odd schema.v1', 'events')} DEFAULT;`,

    // Inheritance; the parent's column added after the child: the child's columns are then (id, name,
    // doors, wheels) here, and (id, name, wheels, doors) in any restore of pg_dump's CREATE TABLE ... INHERITS.
    `CREATE TABLE ${qq('quo"te', 'Vehicles')} (id int PRIMARY KEY, name text NOT NULL);`,
    `CREATE TABLE ${qq('quo"te', 'cars')} (doors int CHECK (doors > 0)) INHERITS (${qq('quo"te', 'Vehicles')});`,
    `CREATE TABLE ${qq('quo"te', 'boats "in" water')} (draft numeric) INHERITS (${qq('quo"te', 'Vehicles')});`,
    `ALTER TABLE ${qq('quo"te', 'Vehicles')} ADD COLUMN wheels int DEFAULT 4;`,

    // Awkward table and column names.
    `CREATE TABLE ${qq('new\nline', 'Table With Space')} ("Mixed Case" int PRIMARY KEY, "dot.ted" text, "quo""ted" text, "new\nline col" text, during int4range,
       EXCLUDE USING gist (during WITH &&));`,
    `COMMENT ON COLUMN ${qq('new\nline', 'Table With Space')}."quo""ted" IS 'a column with a quote';`,
    `CREATE TABLE ${qq('new\nline', 'line\nbreak')} (k text PRIMARY KEY, v text);`,
    `CREATE TABLE ${qq('Billing', 'dot.ted.name')} (id serial PRIMARY KEY, note text DEFAULT 'n/a');`,
  );

  // Data.
  add(
    `INSERT INTO app.accounts (name, email, tenant, balance, home, "Created At")
     SELECT ${seedExpr(seed, 'name')}, 'user' || i || '@example.test', CASE WHEN i % 3 = 0 THEN 'acme' ELSE 'globex' END,
            (i * 37) % 5000, ROW('Street ' || i, lpad((i * 13 % 99999)::text, 5, '0'))::app.address,
            timestamptz '2025-01-01 00:00:00+00' + make_interval(hours => i)
     FROM generate_series(1, 300) AS i;`,
    // The trigger runs on these: updated_at is set on a third of the accounts.
    `UPDATE app.accounts SET balance = balance + 1 WHERE id % 3 = 0;`,
    `INSERT INTO "Billing"."Invoices" (account_id, issued, amount, status, period)
     SELECT 1000 + 7 * ((i * 31) % 300), date '2025-01-01' + (i * 11) % 400, ((i * 7919) % 100000) / 100.0,
            (ARRAY['new', 'Paid', 'void', 'with space', 'quo''te']::"Billing"."Status"[])[1 + i % 5],
            CASE WHEN i % 4 = 0 THEN NULL ELSE tstzrange(timestamptz '2025-01-01Z' + make_interval(days => i % 90), timestamptz '2025-04-01Z' + make_interval(days => i % 90)) END
     FROM generate_series(1, 1200) AS i;`,
    `INSERT INTO ${qq('odd schema.v1', 'events')}
     SELECT i, (ARRAY['login', 'Login', 'pay', 'refund', 'other kind'])[1 + i % 5],
            jsonb_build_object('n', i, 'tag', ${seedExpr(seed, 'tag')}, 'nested', jsonb_build_array(i % 7, NULL, true)),
            CASE WHEN i % 6 = 0 THEN NULL ELSE app.floatrange(i / 10.0, i / 10.0 + 1.5) END,
            timestamptz '2025-06-01Z' + make_interval(mins => i * 17)
     FROM generate_series(1, 600) AS i;`,
    `INSERT INTO ${qq('quo"te', 'Vehicles')} (id, name) SELECT i, 'vehicle ' || i FROM generate_series(1, 30) AS i;`,
    `INSERT INTO ${qq('quo"te', 'cars')} (id, name, doors, wheels) SELECT i, 'car ' || i, 2 + i % 3, 4 FROM generate_series(31, 80) AS i;`,
    `INSERT INTO ${qq('quo"te', 'boats "in" water')} (id, name, draft, wheels) SELECT i, 'boat ' || i, i / 3.0, 0 FROM generate_series(81, 100) AS i;`,
    `INSERT INTO ${qq('new\nline', 'Table With Space')} SELECT i, 'd.' || i, 'q"' || i, E'line\\n' || i, int4range(i * 10, i * 10 + 5) FROM generate_series(1, 50) AS i;`,
    `INSERT INTO ${qq('new\nline', 'line\nbreak')} VALUES ${words.map((w, i) => `(${lit(`${w}#${i}`)}, ${i % 3 ? lit(w) : 'NULL'})`).join(', ')};`,
    `INSERT INTO ${qq('Billing', 'dot.ted.name')} (note) SELECT CASE WHEN i % 2 = 0 THEN 'even' END FROM generate_series(1, 25) AS i;`,
  );

  // Many schemas of plain, seeded tables with FKs, views and sequences.
  for (let s = 1; s <= 8; s++) {
    const schema = `${pick(['Tenant', 'tenant', 'T'])}_${String(s).padStart(2, '0')}${s % 3 === 0 ? ' (archived)' : ''}`;
    const rows = 20 + Math.floor(rnd() * 40);
    add(
      `CREATE SCHEMA ${q(schema)};`,
      `CREATE TABLE ${qq(schema, 'Items')} (id bigserial PRIMARY KEY, label text NOT NULL, price numeric(10, 2), tags text[], flag boolean, made date);`,
      `CREATE TABLE ${qq(schema, 'item notes')} (item_id bigint REFERENCES ${qq(schema, 'Items')} (id) ON DELETE CASCADE, note text, PRIMARY KEY (item_id, note));`,
      `INSERT INTO ${qq(schema, 'Items')} (label, price, tags, flag, made)
       SELECT ${lit(pick(words))} || ' ' || i, round((i * ${1 + Math.floor(rnd() * 97)} % 10000) / 100.0, 2),
              ARRAY[${lit(pick(words))}, 't' || (i % 4)], CASE i % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END, date '2024-02-29' + i
       FROM generate_series(1, ${rows}) AS i;`,
      `INSERT INTO ${qq(schema, 'item notes')} SELECT id, 'note ' || (id % 5) FROM ${qq(schema, 'Items')} WHERE id % 2 = 0;`,
      `CREATE VIEW ${qq(schema, 'cheap items')} AS SELECT id, label FROM ${qq(schema, 'Items')} WHERE price < 20;`,
      `COMMENT ON VIEW ${qq(schema, 'cheap items')} IS ${lit(`view ${s}`)};`,
    );
  }

  // Views and materialized views: populated, stale (its table changed after the last refresh) and unpopulated.
  add(
    `CREATE VIEW app."Account Balances" AS SELECT a.id, a.name, a.balance, count(i.id) AS invoices
     FROM app.accounts a LEFT JOIN "Billing"."Invoices" i ON i.account_id = a.id GROUP BY a.id;`,
    `CREATE MATERIALIZED VIEW app.totals_by_status AS SELECT status, count(*) AS n, sum(amount) AS total FROM "Billing"."Invoices" GROUP BY status;`,
    `CREATE UNIQUE INDEX totals_by_status_idx ON app.totals_by_status (status);`,
    `CREATE MATERIALIZED VIEW app."Stale Totals" AS SELECT kind, count(*) AS n FROM ${qq('odd schema.v1', 'events')} GROUP BY kind;`,
    `INSERT INTO ${qq('odd schema.v1', 'events')} SELECT 1000 + i, 'pay', NULL, NULL, timestamptz '2026-01-01Z' FROM generate_series(1, 20) AS i;`,
    `CREATE MATERIALIZED VIEW app.never_refreshed AS SELECT id FROM app.accounts WITH NO DATA;`,
    `COMMENT ON MATERIALIZED VIEW app."Stale Totals" IS 'not refreshed since events changed';`,
  );

  // Large objects with fixed OIDs (pg_dump keeps them), one empty, one with a comment.
  for (let i = 0; i < 4; i++) {
    const bytes = Array.from({ length: i * 300 }, () => Math.floor(rnd() * 256));
    add(`SELECT lo_from_bytea(${424_200 + i}, '\\x${Buffer.from(bytes).toString('hex')}'::bytea);`);
  }
  add(`COMMENT ON LARGE OBJECT 424201 IS 'a large object with a comment';`);
  add('ANALYZE;');
  return `${out.join('\n')}\n`;
}

/** Text that varies with the seed and the row (`i` in scope), server side. */
function seedExpr(seed: number, what: string): string {
  return `'${what} ' || substr(md5('${seed}:${what}:' || i), 1, 8)`;
}

/** A LATIN1 database's corpus: text beyond ASCII in values, in names and as a partition key. */
export function latin1CorpusSql(seed: number): string {
  const rnd = prng(seed + 1);
  const names = ['Élodie', 'Øyvind', 'Ægir', 'señor', 'Zoë', 'zoe', 'année', 'café crème', 'a', 'B'];
  return [
    'SET client_min_messages = warning;',
    'CREATE SCHEMA "café";',
    `CREATE TABLE "café"."Crème brûlée" (id int PRIMARY KEY, "prénom" text NOT NULL, note text);`,
    `INSERT INTO "café"."Crème brûlée" VALUES ${Array.from({ length: 60 }, (_, i) => `(${i}, ${lit(`${names[i % names.length]!} ${Math.floor(rnd() * 1000)}`)}, ${i % 4 ? lit('déjà vu') : 'NULL'})`).join(', ')};`,
    `CREATE TABLE "café".par_pays (pays text NOT NULL, n int) PARTITION BY LIST (pays);`,
    `CREATE TABLE "café"."par_pays_é" PARTITION OF "café".par_pays FOR VALUES IN ('Côte d''Ivoire', 'Réunion');`,
    `CREATE TABLE "café".par_pays_autres PARTITION OF "café".par_pays DEFAULT;`,
    `INSERT INTO "café".par_pays SELECT (ARRAY['Côte d''Ivoire', 'Réunion', 'Norge', 'España'])[1 + i % 4], i FROM generate_series(1, 40) AS i;`,
    `COMMENT ON TABLE "café"."Crème brûlée" IS 'dessert à la française';`,
    '',
  ].join('\n');
}

/** Creates `database` (TEMPLATE template0, with `createOptions`) and fills it with `sql`, then its settings and comment. */
export async function createCorpusDatabase(cluster: PgCluster, database: string, sql: string, createOptions = ''): Promise<void> {
  await cluster.psql(`DROP DATABASE IF EXISTS ${q(database)} WITH (FORCE)`);
  await cluster.psql(`CREATE DATABASE ${q(database)} TEMPLATE template0 ${createOptions}`);
  await cluster.psql(sql, database);
  await cluster.psql(databaseSettingsSql(database, CORPUS_DATABASE_COMMENT));
}
