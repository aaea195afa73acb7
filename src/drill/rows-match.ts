import type { ArchiveRowsResult } from '../restore/archive/archive-rows.js';
import type { RowsMatchReceipt } from '../restore/receipt.js';
import { DataQueryError, type DataSession } from './data-session.js';
import { fingerprintOf, SCHEMA_DIGEST_SQL, SIZE_SQL, type Fingerprint } from './fingerprint.js';

/** The tables named in the detail and the failure's message; the receipt lists every mismatch. */
const SHOWN = 20;

/**
 * Exact count(*) of each archive table in the scratch database, in one statement: the server finds
 * each table (its names bound as $1, the JSON list in the archive's client encoding $2) and builds
 * one UNION ALL of counts, which query_to_xml runs once and xmltable reads back as rows. A
 * partitioned table (the target of a --load-via-partition-root dump) is counted with its partitions;
 * any other ONLY itself, since an inheritance parent's own data is its own COPY block. Each row: the
 * table's index in the input, its count (null where the table is missing), whether an extension
 * lists it as configuration, and its size, for the fingerprint (cli-contract 9.17). (Without
 * `fingerprint`, no sizes: what bench/drill.mjs weighs the fingerprint against.)
 */
export const countSql = (fingerprint = true) => `
WITH t AS (
  SELECT t.i, c.oid, c.relkind, n.nspname, c.relname
  FROM json_array_elements(convert_from($1::bytea, $2)::json) WITH ORDINALITY AS t(v, i)
  LEFT JOIN pg_namespace n ON n.nspname = t.v->>0
  LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.v->>1 AND c.relkind IN ('r', 'p')),
counted AS (
  SELECT x.i, x.n FROM xmltable('/table/row' PASSING query_to_xml(coalesce(
    (SELECT string_agg(format('SELECT %s AS i, count(*) AS n FROM %s%I.%I', t.i, CASE WHEN t.relkind = 'p' THEN '' ELSE 'ONLY ' END, t.nspname, t.relname), ' UNION ALL ')
     FROM t WHERE t.oid IS NOT NULL),
    'SELECT 0 AS i, 0 AS n WHERE false'), false, false, '') COLUMNS i bigint, n bigint) x)
SELECT t.i, counted.n, EXISTS (SELECT 1 FROM pg_extension x WHERE c.oid = ANY (x.extconfig)), ${fingerprint ? SIZE_SQL : 'NULL::bigint'}
FROM t LEFT JOIN pg_class c ON c.oid = t.oid LEFT JOIN counted ON counted.i = t.i
ORDER BY t.i`;

/** The schema's digest (the fingerprint's), read in the same session as the counts. */
export const DIGEST_SQL = `SELECT ${SCHEMA_DIGEST_SQL}`;

/** The table list as the count query's $1: the names' bytes in the archive's client encoding (UTF-8, or the archive's own bytes). */
export const tableListParam = (names: Array<[string, string]>, client = 'UTF8'): Buffer =>
  Buffer.from(JSON.stringify(names), client === 'UTF8' ? 'utf8' : 'latin1');

export interface RowsMatch {
  passed: boolean;
  detail: string;
  /** The failure's message (each differing table with both counts), for a failed check. */
  message?: string;
  receipt: RowsMatchReceipt | null;
  /** What the restored database held, where the count ran. */
  fingerprint?: Fingerprint;
}

const n = (x: number) => x.toLocaleString('en-US');

/**
 * rows_match (cli-contract 9.11): every table the archive holds data for has, restored, as many rows
 * as the archive holds. An extension's configuration table passes with at least as many (its
 * extension inserts rows of its own, pg_dump keeps only the user's). Counted as the drill's own role.
 */
export async function rowsMatch(archive: ArchiveRowsResult, session: DataSession, client = 'UTF8'): Promise<RowsMatch> {
  if ('failed' in archive) return { passed: false, detail: `could not count the archive's rows: ${archive.failed}`, receipt: null };
  const entries = [...archive.tables].map(([key, rows]) => ({ names: key.split('\u0000') as [string, string], rows }));
  let counted: Array<[number, number | null, boolean, number | null]>;
  let digest: string;
  try {
    // The names as the archive's COPY headers were read: `client` carries them (archive-encoding.ts).
    // The digest of an SQL_ASCII database is of its own bytes, which reach no UTF8 session (its answers here are ASCII).
    if (client !== 'UTF8') await session.rows("SELECT set_config('client_encoding', $1, false)", [client]);
    const list = tableListParam(
      entries.map((e) => e.names),
      client,
    );
    const rows = await session.rows(countSql(), [list, client]);
    const num = (v: unknown) => (v === null ? null : Number(v));
    counted = rows.map(([i, restored, extension, size]) => [Number(i), num(restored), extension === true, num(size)]);
    digest = String((await session.rows(DIGEST_SQL))[0]![0]);
  } catch (err) {
    if (err instanceof DataQueryError) return { passed: false, detail: `the count query failed: ${err.message}`, receipt: null };
    throw err;
  }
  const receipt: RowsMatchReceipt = {
    tables: entries.length,
    archiveRows: 0,
    restoredRows: 0,
    mismatches: [],
    extensionTables: 0,
    uncounted: archive.uncounted,
  };
  for (const [i, restored, extension] of counted) {
    const e = entries[i - 1]!;
    receipt.archiveRows += e.rows;
    receipt.restoredRows += restored ?? 0;
    if (extension) receipt.extensionTables++;
    const ok = restored !== null && (extension ? restored >= e.rows : restored === e.rows);
    if (!ok) receipt.mismatches.push({ table: `${e.names[0]}.${e.names[1]}`, archive: e.rows, restored });
  }
  const notes = [
    receipt.extensionTables ? `${receipt.extensionTables} extension configuration table(s) compared as at least the archive's rows` : '',
    receipt.uncounted ? `${receipt.uncounted} table(s) whose data is INSERT statements not counted` : '',
  ].filter(Boolean);
  const tail = notes.length ? `; ${notes.join('; ')}` : '';
  const fingerprint = fingerprintOf(
    counted.map(([i, restored, , size]) => ({ table: `${entries[i - 1]!.names[0]}.${entries[i - 1]!.names[1]}`, rows: restored, sizeBytes: size })),
    digest,
  );
  if (!receipt.mismatches.length) {
    return {
      passed: true,
      detail: `${n(receipt.tables)} table(s), ${n(receipt.archiveRows)} row(s), each as many as the archive holds${tail}`,
      receipt,
      fingerprint,
    };
  }
  const shown = receipt.mismatches
    .slice(0, SHOWN)
    .map((m) => `${m.table}: ${n(m.archive)} in the archive, ${m.restored === null ? 'table not found' : `${n(m.restored)} restored`}`);
  const more = receipt.mismatches.length > SHOWN ? `; and ${receipt.mismatches.length - SHOWN} more (the receipt lists them)` : '';
  const differ = `${receipt.mismatches.length} of ${n(receipt.tables)} table(s) differ: ${shown.join('; ')}${more}`;
  return { passed: false, detail: `${differ}${tail}`, message: `The restored row counts differ from the archive's: ${differ}.`, receipt, fingerprint };
}
