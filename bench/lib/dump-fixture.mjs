/**
 * A real pg_dump -Fc of a chosen size, and a sandbox data set that serves it: the seed database
 * (test/support/seed.ts) plus TABLES generated bulk tables, dumped from a throwaway cluster, put in
 * a copy of fixtures/ as the default artifact (settings.json artifacts.default: acme-orders, which
 * every completed backup without an artifact of its own serves, bj_0007 of db_orders among them).
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifactInfo, dumpDatabase, seedDatabase } from '../../test/support/seed.ts';
import { MiB, ROOT } from './common.mjs';

export const TABLES = 4;
/** Dump bytes per generated row (pg_dump -Fc, default compression), measured on PostgreSQL 15. */
const BYTES_PER_ROW = 83;

/**
 * Rows of md5 hex text in TABLES tables: pg_dump -Fc compresses them about 2:1, like real text
 * data, and pg_restore --jobs has tables to spread. With this shape pg_restore --jobs=2 restores
 * 40-60 MiB of dump per second on the 2-CPU bench machine (the 1 GiB dump: 17-18 s when the
 * machine is otherwise idle, 23-25 s when it is busy).
 */
function bulkSql(table, rowsPerTable) {
  return `CREATE TABLE bench_events_${table} (id bigint PRIMARY KEY, at timestamptz NOT NULL, kind text NOT NULL, payload text NOT NULL);
INSERT INTO bench_events_${table}
  SELECT g, timestamptz '2026-01-01' + g * interval '1 second', (ARRAY['order','refund','invoice'])[g % 3 + 1],
         md5(g::text || '${table}a') || md5(g::text || '${table}b') || md5(g::text || '${table}c') || md5(g::text || '${table}d')
  FROM generate_series(1, ${rowsPerTable}) g;`;
}

/** Creates `database` in `cluster`: the seed schema and data, plus the bulk tables of a ~targetMiB dump. Returns the rows per table. */
export async function seedBulk(cluster, database, targetMiB, log) {
  await seedDatabase(cluster, database);
  const rowsPerTable = Math.round((targetMiB * MiB) / TABLES / BYTES_PER_ROW);
  log(`generating ${TABLES} x ${rowsPerTable} rows for a ~${targetMiB} MiB dump`);
  // Two tables at a time: the machine has 2 CPUs, and md5() is what the inserts spend their time on.
  for (let t = 0; t < TABLES; t += 2) {
    await Promise.all([t, t + 1].filter((x) => x < TABLES).map((x) => cluster.psql(bulkSql(x, rowsPerTable), database)));
  }
  return rowsPerTable;
}

/**
 * `<dir>/data`: a copy of fixtures/ whose default artifact is the pg_dump -Fc of `database`, its
 * metadata (size, SHA-256, versions) rewritten to match. Returns the data dir and the dump's info.
 */
export async function sandboxDataWithDump(cluster, database, dir) {
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  cpSync(join(ROOT, 'fixtures'), dataDir, { recursive: true });
  const artifact = join(dataDir, 'artifacts', 'acme-orders.pgdump');
  rmSync(artifact);
  await dumpDatabase(cluster, database, artifact);
  const info = await artifactInfo(artifact);
  writeFileSync(join(dataDir, 'artifacts', 'acme-orders.json'), `${JSON.stringify(info, null, 2)}\n`);
  return { dataDir, info };
}
