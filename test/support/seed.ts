/** The deterministic seed database and pg_dump archives built from it, for restore tests and demos. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { clientEnv, PgClusterError, redact, startCluster, type PgCluster } from './pg-cluster.js';

/** fixtures/pg/seed.sql. */
export const SEED_SQL_PATH = fileURLToPath(new URL('../../fixtures/pg/seed.sql', import.meta.url));

/** The database name used for the committed fixtures/artifacts/acme-orders.pgdump. */
export const SEED_DATABASE = 'acme_orders';

/** A deterministic seed script and the database name its committed archive was dumped from. */
export interface Seed {
  sqlPath: string;
  database: string;
  /** A script run after the seed: what a later backup of the same database changed. */
  afterPath?: string;
}

/**
 * The seeds behind fixtures/artifacts, by artifact name: acme-orders.pgdump (db_orders' backups in the
 * sandbox) and billing.pgdump (db_billing's).
 */
export const SEEDS = {
  'acme-orders': { sqlPath: SEED_SQL_PATH, database: SEED_DATABASE },
  billing: { sqlPath: fileURLToPath(new URL('../../fixtures/pg/billing-seed.sql', import.meta.url)), database: 'billing' },
  // The acme-orders seed after a bad night: 90% of its orders gone (the sandbox's drift database, test/support/sandbox-data.ts).
  'orders-shrunk': {
    sqlPath: SEED_SQL_PATH,
    database: SEED_DATABASE,
    afterPath: fileURLToPath(new URL('../../fixtures/pg/orders-shrunk.sql', import.meta.url)),
  },
} as const satisfies Record<string, Seed>;

export interface DatabaseDescription {
  /** Row count per table; schema-qualified unless in public. */
  tables: Record<string, number>;
  /** last_value as stored (the start value if nextval() was never called). */
  sequences: Record<string, number>;
  /** Sorted index names (including primary key and unique constraint indexes). */
  indexes: string[];
  /** Sorted view and materialized view names. */
  views: string[];
}

export interface ArtifactInfo {
  sizeBytes: number;
  sha256: string;
  /** Version of the pg_dump that wrote the archive, from its header, e.g. "15.14". */
  pgDumpVersion: string;
  /** Archive format version from the header, e.g. "1.14". */
  archiveFormatVersion: string;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** CREATE DATABASE (from template0) and load a seed script (default fixtures/pg/seed.sql) into it. */
export async function seedDatabase(cluster: PgCluster, database: string, sqlPath: string = SEED_SQL_PATH): Promise<void> {
  await cluster.psql(`CREATE DATABASE ${quoteIdent(database)} TEMPLATE template0 ENCODING 'UTF8'`);
  await cluster.psql(await readFile(sqlPath, 'utf8'), database);
}

/** `pg_dump -Fc` of database into outFile; the password travels in PGPASSWORD, never argv. */
export async function dumpDatabase(cluster: PgCluster, database: string, outFile: string, extraArgs: string[] = []): Promise<void> {
  const r = await execa(
    join(cluster.binDir, 'pg_dump'),
    ['-Fc', '-w', '-h', cluster.host, '-p', String(cluster.port), '-U', cluster.user, '-d', database, '-f', outFile, ...extraArgs],
    { env: clientEnv(cluster), extendEnv: false, reject: false, stdin: 'ignore', timeout: 300_000 },
  );
  if (r.exitCode !== 0) {
    const why = String(r.stderr).trim() || (r.timedOut ? 'timed out' : `exit ${r.exitCode ?? r.signal}`);
    throw new PgClusterError(redact(`pg_dump of database "${database}" to ${outFile} failed: ${why}`, cluster.password));
  }
}

const DESCRIBE_SQL = `
WITH rels AS (
  SELECT c.relname, c.relkind, n.nspname,
         CASE WHEN n.nspname = 'public' THEN c.relname ELSE n.nspname || '.' || c.relname END AS label
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
    AND n.nspname NOT LIKE 'pg\\_temp%'
)
SELECT json_build_object(
  'tables', (SELECT coalesce(json_object_agg(label, (xpath('/row/n/text()',
               query_to_xml(format('SELECT count(*) AS n FROM %I.%I', nspname, relname), false, true, '')))[1]::text::bigint
             ORDER BY label), '{}') FROM rels WHERE relkind IN ('r', 'p')),
  'sequences', (SELECT coalesce(json_object_agg(label, (xpath('/row/v/text()',
               query_to_xml(format('SELECT last_value AS v FROM %I.%I', nspname, relname), false, true, '')))[1]::text::bigint
             ORDER BY label), '{}') FROM rels WHERE relkind = 'S'),
  'indexes', (SELECT coalesce(json_agg(label ORDER BY label), '[]') FROM rels WHERE relkind IN ('i', 'I')),
  'views', (SELECT coalesce(json_agg(label ORDER BY label), '[]') FROM rels WHERE relkind IN ('v', 'm'))
)`;

/** Row counts, sequence values, indexes and views: enough to tell a faithful restore from a partial one. */
export async function describeDatabase(cluster: PgCluster, database: string): Promise<DatabaseDescription> {
  return JSON.parse(await cluster.psql(DESCRIBE_SQL, database)) as DatabaseDescription;
}

/** Size, SHA-256 and header versions of a pg_dump custom-format archive. */
export async function artifactInfo(file: string): Promise<ArtifactInfo> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const { size } = await stat(file);
  const header = await readDumpHeader(file);
  return { sizeBytes: size, sha256: hash.digest('hex'), ...header };
}

/**
 * The versions in a custom-format archive header (pg_backup_archiver.c, ReadHead): "PGDMP", format
 * version bytes, int and offset sizes, format, compression, creation time, then length-prefixed
 * strings: database name, server version, pg_dump version. Independent of src/restore on purpose:
 * tests can cross-check the engine's parser against it.
 */
export async function readDumpHeader(file: string): Promise<{ pgDumpVersion: string; archiveFormatVersion: string }> {
  const fh = await open(file, 'r');
  const buf = Buffer.alloc(1024);
  let n: number;
  try {
    ({ bytesRead: n } = await fh.read(buf, 0, buf.length, 0));
  } finally {
    await fh.close();
  }
  if (n < 11 || buf.toString('latin1', 0, 5) !== 'PGDMP') throw new Error(`${file} is not a pg_dump custom-format archive (no PGDMP header)`);
  const [maj, min, , intSize] = [buf[5]!, buf[6]!, buf[7]!, buf[8]!];
  if (buf[10] !== 1) throw new Error(`${file} is a pg_dump archive but not custom format (format byte ${buf[10]})`);
  let pos = 11;
  const readInt = (): number => {
    if (pos + 1 + intSize > n) throw new Error(`${file}: truncated archive header`);
    let v = 0;
    for (let i = 0; i < intSize; i++) v += buf[pos + 1 + i]! * 2 ** (8 * i);
    const negative = buf[pos] !== 0;
    pos += 1 + intSize;
    return negative ? -v : v;
  };
  const readStr = (): string => {
    const len = readInt();
    if (len < 0) return '';
    if (pos + len > n) throw new Error(`${file}: truncated archive header`);
    const s = buf.toString('utf8', pos, pos + len);
    pos += len;
    return s;
  };
  if (maj > 1 || (maj === 1 && min >= 15))
    pos += 1; // compression algorithm byte (1.15+)
  else readInt(); // compression level (before 1.15)
  for (let i = 0; i < 7; i++) readInt(); // creation time: sec, min, hour, mday, mon, year, isdst
  readStr(); // database name
  readStr(); // server version
  const pgDump = readStr();
  return { pgDumpVersion: pgDump.split(' ')[0] ?? pgDump, archiveFormatVersion: `${maj}.${min}` };
}

/**
 * Start a cluster, seed it (default: the acme-orders seed), pg_dump -Fc to outFile, stop. With
 * metadataFile, also writes the ArtifactInfo JSON beside it (how fixtures/artifacts/*.{pgdump,json}
 * are made; the sandbox checks the two agree when it loads).
 */
export async function buildSeedArtifact(
  outFile: string,
  opts: { metadataFile?: string; log?: (line: string) => void; seed?: Seed } = {},
): Promise<ArtifactInfo> {
  const seed = opts.seed ?? SEEDS['acme-orders'];
  const cluster = await startCluster(opts.log ? { log: opts.log } : {});
  try {
    await seedDatabase(cluster, seed.database, seed.sqlPath);
    if ('afterPath' in seed && seed.afterPath) await cluster.psql(await readFile(seed.afterPath, 'utf8'), seed.database);
    await mkdir(dirname(outFile), { recursive: true });
    await rm(outFile, { force: true });
    await dumpDatabase(cluster, seed.database, outFile);
  } finally {
    await cluster.stop();
  }
  const info = await artifactInfo(outFile);
  if (opts.metadataFile) await writeFile(opts.metadataFile, `${JSON.stringify(info, null, 2)}\n`);
  return info;
}
