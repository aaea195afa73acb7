import { execa } from 'execa';
import { LocalToolError } from '../errors.js';
import type { SecretScrubber } from '../secrets.js';
import { psql, PsqlError } from './pg-tools.js';

type Env = Record<string, string | undefined>;

/** The kinds of archive entry whose presence in the target is checked after a restore (cli-contract 7.7). */
export const CHECKED_KINDS = ['TABLE', 'VIEW', 'MATERIALIZED VIEW', 'SEQUENCE', 'INDEX'] as const;
export type ObjectKind = (typeof CHECKED_KINDS)[number];

/** pg_class.relkind values each archive kind may be restored as (a partitioned table or index too). */
const RELKINDS: Record<ObjectKind, string[]> = {
  TABLE: ['r', 'p'],
  VIEW: ['v'],
  'MATERIALIZED VIEW': ['m'],
  SEQUENCE: ['S'],
  INDEX: ['i', 'I'],
};

export interface ArchiveObject {
  kind: ObjectKind;
  schema: string;
  name: string;
}

/**
 * The checked objects of a `pg_restore -l` listing. A line is `<id>; <catalog oid> <oid> <KIND>
 * <schema> <name> <owner>`; comment lines start with ';'. A name may hold spaces, so the schema is
 * the first word after the kind and the owner the last.
 */
export function parseToc(listing: string): ArchiveObject[] {
  const objects: ArchiveObject[] = [];
  for (const line of listing.split('\n')) {
    const m = /^\d+; \d+ \d+ (.*)$/.exec(line);
    if (!m) continue;
    const rest = m[1]!;
    const kind = [...CHECKED_KINDS].sort((a, b) => b.length - a.length).find((k) => rest.startsWith(`${k} `));
    // "TABLE DATA", "SEQUENCE SET" and the like are contents, not objects.
    if (!kind || /^(TABLE DATA|SEQUENCE SET|SEQUENCE OWNED BY|INDEX ATTACH) /.test(rest)) continue;
    const words = rest.slice(kind.length + 1).split(' ');
    if (words.length < 3) continue;
    objects.push({ kind, schema: words[0]!, name: words.slice(1, -1).join(' ') });
  }
  return objects;
}

export async function archiveObjects(archivePath: string, env: Env, scrubber: SecretScrubber): Promise<ArchiveObject[]> {
  const r = await execa('pg_restore', ['-l', archivePath], { env, extendEnv: false, reject: false, stdin: 'ignore' });
  if (r.exitCode !== 0) {
    throw new LocalToolError(`pg_restore -l could not list the archive: ${scrubber.scrub(String(r.stderr).trim().split('\n')[0] ?? '')}`);
  }
  return parseToc(String(r.stdout));
}

export interface Inventory {
  /** Objects of each checked kind present after the restore. */
  counts: Record<ObjectKind, number>;
  /** pg_class.reltuples of each restored table after ANALYZE ("schema.table": rows); null where never analysed. */
  rowEstimates: Record<string, number | null>;
}

const CATALOG_SQL = `
SELECT json_build_object(
  'relations', coalesce((SELECT json_agg(json_build_array(n.nspname, c.relname, c.relkind::text))
                         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'), '[]'),
  'tuples', coalesce((SELECT json_object_agg(n.nspname || '.' || c.relname, c.reltuples)
                      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                      WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')), '{}'))`;

/**
 * Every checked object of the archive must exist in the target, with a matching kind: a missing one
 * is exit 11 naming it. Returns the counts and the row estimates for the receipt.
 */
export async function checkTarget(objects: ArchiveObject[], database: string, env: Env, scrubber: SecretScrubber, signal: AbortSignal): Promise<Inventory> {
  let catalog: { relations: Array<[string, string, string]>; tuples: Record<string, number> };
  try {
    catalog = JSON.parse(await psql(CATALOG_SQL, { env, database, scrubber, signal }));
  } catch (err) {
    if (err instanceof PsqlError) throw new LocalToolError(`Could not read the restored database's catalog: ${err.reason}`);
    throw err;
  }
  const present = new Set(catalog.relations.map(([schema, name, kind]) => `${kind} ${schema}.${name}`));
  const missing = objects.filter((o) => !RELKINDS[o.kind].some((k) => present.has(`${k} ${o.schema}.${o.name}`)));
  if (missing.length) {
    const shown = missing.slice(0, 10).map((o) => `${o.kind.toLowerCase()} ${o.schema}.${o.name}`);
    throw new LocalToolError(
      `The restore finished, but ${missing.length} object(s) of the archive are missing from the target: ${shown.join(', ')}${missing.length > 10 ? ', ...' : ''}.`,
      'Check pg_restore\'s output above and the target\'s extensions and roles; then run the restore again.',
    );
  }
  const counts = Object.fromEntries(CHECKED_KINDS.map((k) => [k, objects.filter((o) => o.kind === k).length])) as Record<ObjectKind, number>;
  const tables = new Set(objects.filter((o) => o.kind === 'TABLE' || o.kind === 'MATERIALIZED VIEW').map((o) => `${o.schema}.${o.name}`));
  const rowEstimates: Record<string, number | null> = {};
  for (const key of [...tables].sort()) {
    const rows = catalog.tuples[key];
    rowEstimates[key] = rows === undefined || rows < 0 ? null : Math.round(rows);
  }
  return { counts, rowEstimates };
}

/** The restored tables and materialized views, largest first, as quoted names ANALYZE takes. */
const TABLES_SQL = `
SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
ORDER BY pg_total_relation_size(c.oid) DESC, 1`;

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
  const run = (sql: string) => psql(sql, { env, database, scrubber, signal });
  try {
    const tables = (await run(TABLES_SQL)).split('\n').filter(Boolean);
    if (tables.length === 0) return;
    await Promise.all(analyzeGroups(tables, jobs).map((group) => run(`ANALYZE ${group.join(', ')};`)));
  } catch (err) {
    if (err instanceof PsqlError) throw new LocalToolError(`ANALYZE of the restored database failed: ${err.reason}`, 'The data is restored; run ANALYZE by hand, or restore again with --no-analyze.');
    throw err;
  }
}
