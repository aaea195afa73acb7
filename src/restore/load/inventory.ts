import { LocalToolError } from '../../errors.js';
import { mapPool } from '../../pool.js';
import type { SecretScrubber } from '../../secrets.js';
import { PgError } from '../../pg/errors.js';
import { textOfBytes } from '../../pg/quote.js';
import { onEnv, queryEnv, type TargetSessionOptions } from '../../pg/target-session.js';
import { relationEntries, type RelationDesc, type Toc } from '../archive/toc.js';

type Env = Record<string, string | undefined>;

/** The kinds of archive entry whose presence in the target is checked after a restore (cli-contract 7.7). */
export const CHECKED_KINDS = ['TABLE', 'VIEW', 'MATERIALIZED VIEW', 'SEQUENCE', 'INDEX'] as const satisfies readonly RelationDesc[];
export type ObjectKind = (typeof CHECKED_KINDS)[number];

/** pg_class.relkind values each archive kind may be restored as (a partitioned table or index too). */
const RELKINDS: Record<ObjectKind, string[]> = {
  TABLE: ['r', 'p'],
  VIEW: ['v'],
  'MATERIALIZED VIEW': ['m'],
  SEQUENCE: ['S'],
  INDEX: ['i', 'I'],
};

/** "2 tables, 1 view, 3 sequences, 2 indexes": the kinds present, as a person reads them. */
export function objectCounts(counts: Record<ObjectKind, number>): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind.toLowerCase()}${n === 1 ? '' : kind.endsWith('X') ? 'es' : 's'}`)
    .join(', ');
}

export interface ArchiveObject {
  kind: ObjectKind;
  schema: string;
  name: string;
}

/** A relation of the target's catalog, keyed as pg_restore -l prints it (a newline in a name becomes a space there). */
const catalogKey = (relkind: string, schema: string, name: string) => [relkind, schema, name].map((s) => s.replace(/[\r\n]/g, ' ')).join('\u0000');

/**
 * Which object of the target a listing entry names, as the catalog spells it. "Sales 2024 my table
 * owner with space" splits several ways into schema, name and owner; the split that names a
 * relation of the right kind in the target's catalog is the one pg_dump wrote. Undefined when no
 * split does: the object is missing.
 */
function resolve(kind: ObjectKind, words: string, present: Map<string, [schema: string, name: string]>): ArchiveObject | undefined {
  const w = words.split(' ');
  for (let i = 1; i < w.length - 1; i++) {
    for (let j = i + 1; j < w.length; j++) {
      const schema = w.slice(0, i).join(' ');
      const name = w.slice(i, j).join(' ');
      for (const relkind of RELKINDS[kind]) {
        const found = present.get(catalogKey(relkind, schema, name));
        if (found) return { kind, schema: found[0], name: found[1] };
      }
    }
  }
  return undefined;
}

/** An unresolved entry, named for a message as pg_restore prints it (schema and name, owner left out where it can be told). */
function describeMissing(kind: ObjectKind, words: string): string {
  const w = words.split(' ');
  const shown = w.length === 3 ? `${w[0]}.${w[1]}` : words;
  return `${kind.toLowerCase()} ${shown}`;
}

export interface Inventory {
  /** Objects of each checked kind present after the restore. */
  counts: Record<ObjectKind, number>;
  /** pg_class.reltuples of each restored table after ANALYZE ("schema.table": rows); null where never analysed. */
  rowEstimates: Record<string, number | null>;
}

/**
 * The target's relations, their names as bytes in `$1` (the archive's session encoding): read as the
 * listing's names were, whatever the database's encoding, with nothing but ASCII on the wire.
 */
const CATALOG_SQL = `
SELECT pg_catalog.convert_to(n.nspname, $1) AS schema, pg_catalog.convert_to(c.relname, $1) AS name, c.relkind::text AS kind, c.reltuples AS tuples
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'`;

interface CatalogRow {
  schema: Buffer;
  name: Buffer;
  kind: string;
  tuples: number;
}

/** A session of svc's own in the restored database, whose objects it does not trust: names resolve in pg_catalog only. */
const restored = (database: string, env: Env, scrubber: SecretScrubber, signal: AbortSignal): TargetSessionOptions => ({
  env,
  database,
  scrubber,
  signal,
  catalogOnly: true,
});

/**
 * Every relation of the archive must exist in the target, with a matching kind: a missing one is
 * exit 11 naming it. Compared by what the target's catalog holds, not by splitting names on spaces.
 * Returns the counts and the row estimates for the receipt.
 */
export async function checkTarget(toc: Toc, database: string, env: Env, scrubber: SecretScrubber, signal: AbortSignal): Promise<Inventory> {
  const client = toc.encoding.client;
  let rows: CatalogRow[];
  try {
    rows = await queryEnv<CatalogRow>(restored(database, env, scrubber, signal), CATALOG_SQL, [client]);
  } catch (err) {
    if (err instanceof PgError) throw new LocalToolError(`Could not read the restored database's catalog: ${err.reason}`);
    throw err;
  }
  const relations = rows.map((r) => ({ schema: textOfBytes(r.schema, client), name: textOfBytes(r.name, client), kind: r.kind, tuples: r.tuples }));
  const present = new Map(relations.map(({ schema, name, kind }) => [catalogKey(kind, schema, name), [schema, name] as [string, string]]));
  const tuples = new Map(relations.filter((r) => ['r', 'p', 'm'].includes(r.kind)).map((r) => [`${r.schema}.${r.name}`, r.tuples]));
  const objects: ArchiveObject[] = [];
  const missing: string[] = [];
  for (const entry of relationEntries(toc)) {
    if (!(CHECKED_KINDS as readonly string[]).includes(entry.desc)) continue;
    const kind = entry.desc as ObjectKind;
    const found = resolve(kind, entry.words, present);
    if (found) objects.push(found);
    else missing.push(describeMissing(kind, entry.words));
  }
  if (missing.length) {
    throw new LocalToolError(
      `The restore finished, but ${missing.length} object(s) of the archive are missing from the target: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', ...' : ''}.`,
      "Check pg_restore's output above and the target's extensions and roles; then run the restore again.",
    );
  }
  const counts = Object.fromEntries(CHECKED_KINDS.map((k) => [k, objects.filter((o) => o.kind === k).length])) as Record<ObjectKind, number>;
  const tables = new Set(objects.filter((o) => o.kind === 'TABLE' || o.kind === 'MATERIALIZED VIEW').map((o) => `${o.schema}.${o.name}`));
  const rowEstimates: Record<string, number | null> = {};
  for (const key of [...tables].sort()) {
    const estimate = tuples.get(key);
    rowEstimates[key] = estimate === undefined || estimate < 0 ? null : Math.round(estimate);
  }
  return { counts, rowEstimates };
}

/** The restored tables and materialized views, largest first, by oid: their names never leave the server. */
const TABLES_SQL = `
SELECT c.oid::text AS oid
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
ORDER BY pg_total_relation_size(c.oid) DESC, n.nspname, c.relname`;

/**
 * ANALYZE of the tables `oids` name, each written by the server from its own catalog (`oid::regclass`,
 * quoted as needed), so a name in any encoding goes back byte for byte. Each in a transaction of its
 * own, as a top-level ANALYZE of several tables does: a group that held its locks to the end would
 * deadlock with another analysing a partition of its partitioned table.
 */
const analyzeSql = (oids: string[]) => `DO $svc$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.oid::regclass AS rel FROM unnest('{${oids.join(',')}}'::oid[]) WITH ORDINALITY AS t(oid, i) JOIN pg_class c ON c.oid = t.oid ORDER BY t.i LOOP
    EXECUTE 'ANALYZE ' || r.rel;
    COMMIT;
  END LOOP;
END $svc$`;

/** `tables` (largest first) in at most `jobs` groups of about equal size. */
export function analyzeGroups(tables: string[], jobs: number): string[][] {
  const groups: string[][] = Array.from({ length: Math.max(1, Math.min(jobs, tables.length)) }, () => []);
  // Dealt in snake order (1 2 3 3 2 1 1 2 ...): with the largest first, the groups' sizes stay close.
  tables.forEach((t, i) => {
    const lap = Math.floor(i / groups.length);
    const slot = i % groups.length;
    groups[lap % 2 === 0 ? slot : groups.length - 1 - slot]!.push(t);
  });
  return groups.filter((g) => g.length > 0);
}

/**
 * ANALYZE the restored database: pg_restore leaves the planner without statistics. Its tables are
 * spread over `jobs` connections, as `vacuumdb --analyze-only --jobs` does: on a large restore,
 * one serial ANALYZE is a visible share of the recovery time.
 */
export async function analyzeTarget(database: string, jobs: number, env: Env, scrubber: SecretScrubber, signal: AbortSignal): Promise<void> {
  const session = restored(database, env, scrubber, signal);
  try {
    const tables = (await queryEnv<{ oid: string }>(session, TABLES_SQL)).map((r) => r.oid);
    if (tables.length === 0) return;
    // A session per group; mapPool, not Promise.all: on a signal every session has ended before the run goes on to clean up.
    const groups = analyzeGroups(tables, jobs);
    await mapPool(groups, groups.length, (group) => onEnv(session, (client) => client.query(analyzeSql(group))));
  } catch (err) {
    if (err instanceof PgError)
      throw new LocalToolError(
        `ANALYZE of the restored database failed: ${err.reason}`,
        'The data is restored; run ANALYZE by hand, or restore again with --no-analyze.',
      );
    throw err;
  }
}
