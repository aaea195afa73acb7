/**
 * What a restored database held (cli-contract 9.17): each table rows_match counted, with its rows
 * and size on disk, the totals, and a digest of the schema. The sizes are read in rows_match's count
 * query and the digest right after it on the same session, so the fingerprint costs no session of its own.
 */

export interface FingerprintTable {
  /** schema.table, as rows_match names it. */
  table: string;
  rows: number;
  /** pg_total_relation_size: heap, indexes and TOAST (a partitioned table: its partitions one level down). */
  sizeBytes: number;
}

export interface Fingerprint {
  tables: FingerprintTable[];
  totals: { tables: number; rows: number; sizeBytes: number };
  /** SHA-256 of the normalised schema description below: equal schemas, equal digests, whoever owns them. */
  schemaDigest: string;
}

const USER_SCHEMA = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'";

/** A table's size, for the count query's row of table `c`. */
export const SIZE_SQL = `CASE WHEN c.oid IS NULL THEN NULL WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_total_relation_size(h.inhrelid)), 0) FROM pg_inherits h WHERE h.inhparent = c.oid)::bigint ELSE pg_total_relation_size(c.oid) END`;

/**
 * The schema as sorted lines (relations, columns with their types, constraints, indexes, function
 * signatures; no owner, privilege, comment or OID), hashed by the server: its text never crosses the
 * connection. Sorted in the C collation, so the digest does not depend on the database's locale. Its
 * UTF-8 bytes; an SQL_ASCII database's own bytes, which have no encoding to convert from (a name may hold 0xe9).
 */
export const SCHEMA_DIGEST_SQL = `
(SELECT encode(sha256(CASE WHEN getdatabaseencoding() = 'SQL_ASCII' THEN textsend(s) ELSE convert_to(s, 'UTF8') END), 'hex')
 FROM (SELECT coalesce(string_agg(l, E'\\n' ORDER BY l COLLATE "C"), '') AS s FROM (
  SELECT format('relation %I.%I %s', n.nspname, c.relname, c.relkind) AS l
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE ${USER_SCHEMA} AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
  UNION ALL
  SELECT format('column %I.%I %s %I %s%s', n.nspname, c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), CASE WHEN a.attnotnull THEN ' not null' ELSE '' END)
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE ${USER_SCHEMA} AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT format('constraint %I.%I %I %s', n.nspname, c.relname, o.conname, pg_get_constraintdef(o.oid))
    FROM pg_constraint o JOIN pg_class c ON c.oid = o.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE ${USER_SCHEMA}
  UNION ALL
  SELECT format('index %s', pg_get_indexdef(i.indexrelid))
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE ${USER_SCHEMA}
  UNION ALL
  SELECT format('function %I.%I(%s) %s', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid), coalesce(pg_get_function_result(p.oid), ''))
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE ${USER_SCHEMA}
) u) agg)`;

/** The fingerprint of the tables found (a table rows_match could not find has no rows to remember). */
export function fingerprintOf(tables: Array<{ table: string; rows: number | null; sizeBytes: number | null }>, schemaDigest: string): Fingerprint {
  const found = tables.filter((t) => t.rows !== null).map((t) => ({ table: t.table, rows: t.rows!, sizeBytes: t.sizeBytes ?? 0 }));
  found.sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
  return {
    tables: found,
    totals: { tables: found.length, rows: found.reduce((a, t) => a + t.rows, 0), sizeBytes: found.reduce((a, t) => a + t.sizeBytes, 0) },
    schemaDigest,
  };
}
