import { psql, PsqlError } from '../restore/target/pg-tools.js';
import { quoteLiteral } from '../pg/quote.js';
import type { ArchiveRowsResult } from '../restore/archive/archive-rows.js';
import type { RowsMatchReceipt } from '../restore/receipt.js';
import type { SecretScrubber } from '../secrets.js';
import { fingerprintOf, SCHEMA_DIGEST_SQL, SIZE_SQL, type Fingerprint } from './fingerprint.js';

type Env = Record<string, string | undefined>;

/** The tables named in the detail and the failure's message; the receipt lists every mismatch. */
const SHOWN = 20;

/**
 * Exact count(*) of each archive table in the scratch database. A partitioned table (the target of
 * a --load-via-partition-root dump) is counted with its partitions; any other ONLY itself, since an
 * inheritance parent's own data is its own COPY block. Each row: the table's index in the input, its
 * count (null where the table is missing), whether an extension lists it as configuration, and its
 * size; with them the schema's digest, for the fingerprint (cli-contract 9.17) in the same session.
 * (Without `fingerprint`, the query as it was before the fingerprint: what bench/drill.mjs weighs it against.)
 */
export const countSql = (tables: string, fingerprint = true) => `
SELECT json_build_object('t', coalesce(json_agg(json_build_array(t.i,
  CASE WHEN c.oid IS NOT NULL THEN (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %s%I.%I', CASE WHEN c.relkind = 'p' THEN '' ELSE 'ONLY ' END, n.nspname, c.relname), false, true, '')))[1]::text::bigint END,
  EXISTS (SELECT 1 FROM pg_extension x WHERE c.oid = ANY (x.extconfig)), ${fingerprint ? SIZE_SQL : 'NULL'}) ORDER BY t.i), '[]'), 'd', ${fingerprint ? SCHEMA_DIGEST_SQL : 'NULL'})
FROM json_array_elements(${quoteLiteral(tables)}::json) WITH ORDINALITY AS t(v, i)
LEFT JOIN pg_namespace n ON n.nspname = t.v->>0
LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.v->>1 AND c.relkind IN ('r', 'p');`;

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
export async function rowsMatch(
  archive: ArchiveRowsResult,
  database: string,
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
  client?: string,
): Promise<RowsMatch> {
  if ('failed' in archive) return { passed: false, detail: `could not count the archive's rows: ${archive.failed}`, receipt: null };
  const entries = [...archive.tables].map(([key, rows]) => ({ names: key.split('\u0000') as [string, string], rows }));
  let counted: Array<[number, number | null, boolean, number | null]>;
  let digest: string;
  try {
    // The names as the archive's COPY headers were read: `client` carries them (archive-encoding.ts).
    ({ t: counted, d: digest } = JSON.parse(await psql(countSql(JSON.stringify(entries.map((e) => e.names))), { env, database, scrubber, signal, client })));
  } catch (err) {
    if (err instanceof PsqlError) return { passed: false, detail: `the count query failed: ${err.reason}`, receipt: null };
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
