/**
 * Compares a restored database with its source, the way PostgreSQL's pg_upgrade test does (style
 * habit 14): `pg_dump --schema-only --no-owner --no-privileges` of both, every table's rows as an
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
      const r = await execa(`${binDir}/psql`, [...args, '-X', '-q', '-w', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-f', '-'], { input: sql, env, extendEnv: false, reject: false });
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
export function differences(kind: string, source: Map<string, string> | Record<string, string>, target: Map<string, string> | Record<string, string>): string[] {
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
  data: Record<string, string>;
  database: Record<string, string>;
}

export async function fingerprint(db: Db, asSource: boolean): Promise<Fingerprint> {
  return {
    schema: (await canDump(db)) ? await schemaEntries(db) : undefined,
    data: await dataHashes(db, asSource),
    database: await databaseProperties(db),
  };
}

/** Every difference between a source's fingerprint and a restore's, by name; `skipDatabase`: the database properties not to compare, with why. */
export function compare(source: Fingerprint, target: Fingerprint, opts: { skipDatabase?: string[] } = {}): string[] {
  const db = (f: Fingerprint) => Object.fromEntries(Object.entries(f.database).filter(([k]) => !opts.skipDatabase?.includes(k)));
  return [
    ...(source.schema && target.schema ? differences('schema entry', source.schema, target.schema) : []),
    ...differences('rows', source.data, target.data),
    ...differences('database', db(source), db(target)),
  ];
}
