/**
 * Compares a restored database with its source, the way PostgreSQL's pg_upgrade test does (style
 * habit 14): `pg_dump --schema-only --no-owner --no-privileges` of both (where the machine's pg_dump
 * can dump the server), the server's own description of every object, every table's rows as an
 * ordered hash computed by the server (never whole tables in memory), sequences, large objects and
 * the database's own properties (encoding, locale, settings, comment), which no schema dump without
 * --create shows. Each difference is named.
 *
 * The normalisers, each a difference that remains by design (docs/restore-and-drills.md, "What a
 * passed drill does and does not prove"), and nothing else:
 * - owners and privileges: both dumps are taken with --no-owner --no-privileges, as svc restores;
 * - the `\restrict`/`\unrestrict` lines pg_dump 15.14+ writes carry a random key per run;
 * - an inheritance child's rows are hashed with its columns in name order: pg_dump writes
 *   `CREATE TABLE child (...) INHERITS (parent)`, so a restored child has the parent's columns first,
 *   whatever order a later `ALTER TABLE parent ADD COLUMN` gave the source;
 * - a populated materialized view is compared with what its query returns on the source: pg_restore
 *   runs REFRESH MATERIALIZED VIEW (pg_dump stores no matview rows), so a stale one comes back fresh.
 */
import { execa } from 'execa';
import { clientEnv, type PgCluster } from './pg-cluster.js';
import { psqlStatements, runStatements } from './pg-query.js';

/** One database to compare: SQL on it, and how pg_dump reaches it. */
export interface Db {
  label: string;
  psql(sql: string): Promise<string>;
  /** pg_dump's connection options (-h, -p, -U, -d) and environment. */
  dumpArgs: string[];
  dumpEnv: Record<string, string>;
  /** The machine's client tools. */
  binDir: string;
}

export function clusterDb(cluster: PgCluster, database: string): Db {
  return {
    label: database,
    psql: (sql) => cluster.psql(sql, database),
    dumpArgs: ['-h', cluster.host, '-p', String(cluster.port), '-U', cluster.user, '-d', database],
    dumpEnv: clientEnv(cluster),
    binDir: cluster.binDir,
  };
}

/** A database reached by a kept drill's `psql -h <socket dir> -p <port> -U postgres -d <name>` line. */
export function keptDb(psqlLine: string, binDir: string): Db {
  const args = psqlLine.split(' ').slice(1);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LC_MESSAGES: 'C', PGCLIENTENCODING: 'UTF8' };
  return {
    label: args.at(-1)!,
    async psql(sql) {
      const statements = psqlStatements(sql);
      if (statements) {
        const arg = (flag: string) => args[args.indexOf(flag) + 1]!;
        const target = { host: arg('-h'), port: Number(arg('-p')), user: arg('-U'), database: arg('-d') };
        return runStatements(target, statements).catch((e: unknown) => {
          throw new Error(`psql on the kept drill database failed: ${(e as Error).message}`);
        });
      }
      const r = await execa(`${binDir}/psql`, [...args, '-X', '-q', '-w', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-f', '-'], {
        input: sql,
        env,
        extendEnv: false,
        reject: false,
      });
      if (r.exitCode !== 0) throw new Error(`psql on the kept drill database failed: ${String(r.stderr).trim()}`);
      return String(r.stdout).trim();
    },
    dumpArgs: args,
    dumpEnv: env,
    binDir,
  };
}

/** Whether the machine's pg_dump can dump this server (it refuses a newer major). */
export async function canDump(db: Db): Promise<boolean> {
  const server = Math.floor(Number(await db.psql('SHOW server_version_num')) / 10_000);
  const { stdout } = await execa(`${db.binDir}/pg_dump`, ['--version']);
  return server <= Number(/\(PostgreSQL\) (\d+)/.exec(stdout)![1]);
}

/** `pg_dump --schema-only --no-owner --no-privileges`, split into its entries by their `-- Name:` headers. */
export async function schemaEntries(db: Db): Promise<Map<string, string>> {
  const r = await execa(`${db.binDir}/pg_dump`, ['--schema-only', '--no-owner', '--no-privileges', '-w', ...db.dumpArgs], {
    env: db.dumpEnv,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  if (r.exitCode !== 0) throw new Error(`pg_dump --schema-only of ${db.label} failed: ${String(r.stderr).trim()}`);
  const entries = new Map<string, string>();
  let key = '(header)';
  let body: string[] = [];
  const flush = () => {
    let k = key;
    for (let n = 2; entries.has(k); n++) k = `${key} #${n}`;
    entries.set(k, body.join('\n').trim());
  };
  for (const line of String(r.stdout).split('\n')) {
    // A random key per run (pg_dump 15.14+, CVE-2025-8714): never the same twice.
    if (/^\\(un)?restrict /.test(line)) continue;
    const m = /^-- (?:Data for )?Name: (.*); Type: (.*); Schema: (.*); Owner: .*$/.exec(line);
    if (m) {
      flush();
      key = `${m[2]} ${m[3] === '-' ? '' : `${m[3]}.`}${m[1]}`;
      body = [];
    } else body.push(line);
  }
  flush();
  return entries;
}

/**
 * The schema as the server itself describes it, one entry per object (pg_describe_object), for any
 * major: pg_dump cannot dump a server newer than itself, the catalog can always be read. Columns of
 * an inheritance child are listed by name (the normaliser above); nothing refers to OIDs. With
 * search_path empty of user schemas, every name is schema-qualified, whatever the database's own setting.
 * NOT NULL constraints (catalog rows of their own from PostgreSQL 18, named after the statement that
 * made them) are left to each column's not-null flag: an archive of an older major names them anew.
 */
const CATALOG_SQL = `
SET search_path = pg_catalog;
WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\\_to%' AND nspname NOT LIKE 'pg\\_temp%'),
rel AS (SELECT c.*, EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = c.oid AND p.relkind = 'r') AS inherits_table
        FROM pg_class c WHERE c.relnamespace IN (SELECT oid FROM ns)),
entries(k, v) AS (
  SELECT pg_describe_object('pg_namespace'::regclass, n.oid, 0), '' FROM pg_namespace n WHERE n.oid IN (SELECT oid FROM ns) AND n.nspname <> 'public'
  UNION ALL
  SELECT pg_describe_object('pg_class'::regclass, c.oid, 0),
         concat_ws(' | ', c.relkind, c.relpersistence, 'rls=' || c.relrowsecurity, 'force=' || c.relforcerowsecurity,
                   pg_get_expr(c.relpartbound, c.oid), CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END,
                   CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END, CASE WHEN c.relkind IN ('i', 'I') THEN pg_get_indexdef(c.oid) END,
                   array_to_string(c.reloptions, ','),
                   (SELECT string_agg(p.inhparent::regclass::text, ',' ORDER BY p.inhseqno) FROM pg_inherits p WHERE p.inhrelid = c.oid),
                   (SELECT string_agg(concat_ws(' ', quote_ident(a.attname), format_type(a.atttypid, a.atttypmod), CASE WHEN a.attnotnull THEN 'not null' END,
                                                NULLIF(a.attidentity, ''), NULLIF(a.attgenerated, ''), pg_get_expr(d.adbin, d.adrelid),
                                                CASE WHEN a.attcollation <> 0 THEN 'collate ' || a.attcollation::regcollation::text END),
                                      ', ' ORDER BY CASE WHEN c.inherits_table THEN a.attname::text END, a.attnum)
                    FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))
  FROM rel c WHERE c.relkind <> 't'
  UNION ALL
  SELECT pg_describe_object('pg_constraint'::regclass, o.oid, 0), concat_ws(' | ', o.contype, pg_get_constraintdef(o.oid), 'valid=' || o.convalidated, 'local=' || o.conislocal)
  FROM pg_constraint o WHERE o.connamespace IN (SELECT oid FROM ns) AND o.contype <> 'n'
  UNION ALL
  SELECT pg_describe_object('pg_trigger'::regclass, t.oid, 0), t.tgenabled::text || ' | ' || pg_get_triggerdef(t.oid)
  FROM pg_trigger t WHERE NOT t.tgisinternal AND t.tgrelid IN (SELECT oid FROM rel)
  UNION ALL
  SELECT pg_describe_object('pg_policy'::regclass, p.oid, 0), concat_ws(' | ', p.polcmd, p.polpermissive, pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid))
  FROM pg_policy p WHERE p.polrelid IN (SELECT oid FROM rel)
  UNION ALL
  SELECT pg_describe_object('pg_proc'::regclass, p.oid, 0), pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.pronamespace IN (SELECT oid FROM ns)
  UNION ALL
  SELECT pg_describe_object('pg_type'::regclass, t.oid, 0),
         concat_ws(' | ', t.typtype, CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END, 'not null=' || t.typnotnull, t.typdefault,
                   (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid),
                   (SELECT format_type(r.rngsubtype, NULL) FROM pg_range r WHERE r.rngtypid = t.oid))
  FROM pg_type t WHERE t.typnamespace IN (SELECT oid FROM ns) AND t.typtype IN ('d', 'e', 'r', 'c') AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
  UNION ALL
  SELECT 'comment on ' || pg_describe_object(d.classoid, d.objoid, d.objsubid), d.description FROM pg_description d
  WHERE d.classoid = ANY (ARRAY['pg_namespace', 'pg_class', 'pg_proc', 'pg_type', 'pg_constraint', 'pg_trigger', 'pg_policy']::regclass[])
    AND NOT EXISTS (SELECT 1 FROM pg_namespace n WHERE d.classoid = 'pg_namespace'::regclass AND d.objoid = n.oid AND n.oid NOT IN (SELECT oid FROM ns))
    AND (d.classoid <> 'pg_proc'::regclass OR d.objoid IN (SELECT oid FROM pg_proc WHERE pronamespace IN (SELECT oid FROM ns)))
    AND (d.classoid <> 'pg_class'::regclass OR d.objoid IN (SELECT oid FROM rel))
    AND (d.classoid <> 'pg_type'::regclass OR d.objoid IN (SELECT oid FROM pg_type WHERE typnamespace IN (SELECT oid FROM ns)))
)
SELECT coalesce(jsonb_object_agg(k, coalesce(v, '')), '{}') FROM entries`;

export async function catalogEntries(db: Db): Promise<Record<string, string>> {
  return JSON.parse(await db.psql(CATALOG_SQL)) as Record<string, string>;
}

interface Relation {
  name: string;
  kind: 'r' | 'm';
  populated: boolean;
  inheritsTable: boolean;
  columns: string[];
  viewdef: string | null;
}

const RELATIONS_SQL = `
SELECT coalesce(json_agg(json_build_object(
  'name', format('%I.%I', n.nspname, c.relname), 'kind', c.relkind, 'populated', c.relispopulated,
  'inheritsTable', EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = c.oid AND p.relkind = 'r'),
  'columns', (SELECT json_agg(quote_ident(a.attname) ORDER BY a.attnum) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
  'viewdef', CASE WHEN c.relkind = 'm' THEN pg_get_viewdef(c.oid) END
) ORDER BY n.nspname, c.relname), '[]')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_to%'`;

/** The server's md5 of a query's rows as text, ordered by that text. */
const hashOf = (rowsSql: string) => `(SELECT md5(coalesce(string_agg(t, E'\\n' ORDER BY t COLLATE "C"), '')) FROM (${rowsSql}) h(t))`;

/**
 * Every table's (and matview's) rows as one ordered hash each, sequences' last values, large objects'
 * contents and comments. `asSource`: a populated matview stands for its query's result (see above).
 */
export async function dataHashes(db: Db, asSource: boolean): Promise<Record<string, string>> {
  const relations = JSON.parse(await db.psql(RELATIONS_SQL)) as Relation[];
  const parts: string[] = [];
  for (const r of relations) {
    const cols = r.inheritsTable ? [...r.columns].sort() : r.columns;
    const row = `ROW(${cols.join(', ')})::text`;
    let expr: string;
    if (r.kind === 'm' && !r.populated) expr = `'(not populated)'`;
    else if (r.kind === 'm' && asSource) expr = hashOf(`SELECT ${row} FROM (${r.viewdef!.replace(/;\s*$/, '')}) q`);
    else expr = hashOf(`SELECT ${row} FROM ONLY ${r.name}`);
    parts.push(`SELECT ${lit(`${r.kind === 'm' ? 'matview' : 'table'} ${r.name}`)}, ${expr}`);
  }
  parts.push(`SELECT 'sequence ' || format('%I.%I', schemaname, sequencename), coalesce(last_value::text, '(never called)') FROM pg_sequences`);
  parts.push(`SELECT 'large object ' || oid, md5(lo_get(oid)) || ' ' || coalesce(obj_description(oid, 'pg_largeobject'), '') FROM pg_largeobject_metadata`);
  return JSON.parse(await db.psql(`SELECT coalesce(json_object_agg(k, v), '{}') FROM (${parts.join('\nUNION ALL\n')}) x(k, v)`)) as Record<string, string>;
}

const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** The database's own properties, which a schema dump without --create does not show. */
const DATABASE_SQL = `
SELECT json_build_object(
  'encoding', pg_encoding_to_char(d.encoding),
  'LC_COLLATE', d.datcollate,
  'LC_CTYPE', d.datctype,
  'locale provider', coalesce(to_jsonb(d) ->> 'datlocprovider', 'c'),
  'ICU locale', coalesce(to_jsonb(d) ->> 'datlocale', to_jsonb(d) ->> 'daticulocale', ''),
  'settings', coalesce((SELECT array_to_string(array(SELECT unnest(setconfig) ORDER BY 1), '; ') FROM pg_db_role_setting WHERE setdatabase = d.oid AND setrole = 0), ''),
  'comment', coalesce(shobj_description(d.oid, 'pg_database'), '')
) FROM pg_database d WHERE d.datname = current_database()`;

export async function databaseProperties(db: Db): Promise<Record<string, string>> {
  return JSON.parse(await db.psql(DATABASE_SQL)) as Record<string, string>;
}

/** Named differences between two maps: missing, extra, or different (with both values when short). */
export function differences(
  kind: string,
  source: Map<string, string> | Record<string, string>,
  target: Map<string, string> | Record<string, string>,
): string[] {
  const a = source instanceof Map ? source : new Map(Object.entries(source));
  const b = target instanceof Map ? target : new Map(Object.entries(target));
  const out: string[] = [];
  const show = (v: string) => JSON.stringify(v.length > 300 ? `${v.slice(0, 300)}...` : v);
  for (const [k, v] of a) {
    if (!b.has(k)) out.push(`${kind}: ${JSON.stringify(k)} missing from the restore`);
    else if (b.get(k) !== v) out.push(`${kind}: ${JSON.stringify(k)} differs: source ${show(v)}, restored ${show(b.get(k)!)}`);
  }
  for (const k of b.keys()) if (!a.has(k)) out.push(`${kind}: ${JSON.stringify(k)} only in the restore`);
  return out;
}

export interface Fingerprint {
  /** Undefined when the machine's pg_dump cannot dump this server (a newer major). */
  schema: Map<string, string> | undefined;
  /** The server's own description of every object (catalogEntries). */
  catalog: Record<string, string>;
  data: Record<string, string>;
  database: Record<string, string>;
}

export async function fingerprint(db: Db, asSource: boolean): Promise<Fingerprint> {
  return {
    schema: (await canDump(db)) ? await schemaEntries(db) : undefined,
    catalog: await catalogEntries(db),
    data: await dataHashes(db, asSource),
    database: await databaseProperties(db),
  };
}

/** Every difference between a source's fingerprint and a restore's, by name; `skipDatabase`: the database properties not to compare, with why. */
export function compare(source: Fingerprint, target: Fingerprint, opts: { skipDatabase?: string[] } = {}): string[] {
  const db = (f: Fingerprint) => Object.fromEntries(Object.entries(f.database).filter(([k]) => !opts.skipDatabase?.includes(k)));
  return [
    ...(source.schema && target.schema ? differences('schema entry', source.schema, target.schema) : []),
    ...differences('catalog', source.catalog, target.catalog),
    ...differences('rows', source.data, target.data),
    ...differences('database', db(source), db(target)),
  ];
}
