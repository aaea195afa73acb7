import { execa } from 'execa';
import { InterruptedError, LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { UTF8_ARCHIVE, type ArchiveEncoding } from './archive-encoding.js';

type Env = Record<string, string | undefined>;

/**
 * One line of `pg_restore -l`, as pg_restore writes it (pg_backup_archiver.c, PrintTOCSummary):
 * `<dumpId>; <tableoid> <oid> <desc> <schema> <name> <owner>`. The desc may be several words
 * ("MATERIALIZED VIEW DATA"), and schema, name and owner are printed unquoted, so a space inside one
 * of them cannot be told from the separator. What the line does say for certain is the catalog its
 * object lives in (`tableoid`: 1259 is pg_class, 3079 pg_extension, 0 a data entry); the words after
 * the desc are resolved against the target's own catalog (see inventory.ts).
 */
export interface TocEntry {
  dumpId: number;
  tableoid: number;
  desc: string;
  /** "schema name owner", the words as printed (a missing schema is "-"). */
  words: string;
}

/** pg_class: the catalog of tables, views, materialized views, sequences, indexes and foreign tables. */
export const PG_CLASS = 1259;
/** pg_extension. */
export const PG_EXTENSION = 3079;

/** The relation kinds pg_dump writes, longest first so "MATERIALIZED VIEW" wins over "VIEW". */
export const RELATION_DESCS = ['MATERIALIZED VIEW', 'FOREIGN TABLE', 'SEQUENCE', 'TABLE', 'VIEW', 'INDEX'] as const;
export type RelationDesc = (typeof RELATION_DESCS)[number];

/**
 * Every other desc pg_dump 14 to 18 writes (pg_dump.c, ArchiveEntry's description), longest first.
 * None of them is a pg_class object, so "TABLE DATA" (tableoid 0) is never a TABLE in a schema
 * named DATA (tableoid 1259).
 */
const OTHER_DESCS = [
  'PUBLICATION TABLES IN SCHEMA',
  'TEXT SEARCH CONFIGURATION',
  'TEXT SEARCH DICTIONARY',
  'MATERIALIZED VIEW DATA',
  'FOREIGN DATA WRAPPER',
  'TEXT SEARCH TEMPLATE',
  'PROCEDURAL LANGUAGE',
  'DATABASE PROPERTIES',
  'TEXT SEARCH PARSER',
  'SUBSCRIPTION TABLE',
  'PUBLICATION TABLE',
  'SEQUENCE OWNED BY',
  'CHECK CONSTRAINT',
  'OPERATOR FAMILY',
  'OPERATOR CLASS',
  'SECURITY LABEL',
  'ACCESS METHOD',
  'EVENT TRIGGER',
  'FK CONSTRAINT',
  'LARGE OBJECTS',
  'ROW SECURITY',
  'SEQUENCE SET',
  'TABLE ATTACH',
  'INDEX ATTACH',
  'LARGE OBJECT',
  'SUBSCRIPTION',
  'USER MAPPING',
  'DEFAULT ACL',
  'PUBLICATION',
  'TABLE DATA',
  'SEARCHPATH',
  'STATISTICS',
  'STDSTRINGS',
  'CONVERSION',
  'CONSTRAINT',
  'SHELL TYPE',
  'COLLATION',
  'AGGREGATE',
  'PROCEDURE',
  'TRANSFORM',
  'EXTENSION',
  'FUNCTION',
  'OPERATOR',
  'ENCODING',
  'DATABASE',
  'TRIGGER',
  'COMMENT',
  'DEFAULT',
  'SCHEMA',
  'SERVER',
  'DOMAIN',
  'POLICY',
  'BLOBS',
  'TYPE',
  'RULE',
  'CAST',
  'BLOB',
  'ACL',
];

export interface Toc {
  /** Every entry pg_restore would restore. */
  entries: TocEntry[];
  /** The encoding the listing was read in (the archive's), which svc's sessions in the restored database follow. */
  encoding: ArchiveEncoding;
}

const LINE = /^(\d+); (\d+) \d+ (.*)$/;

/** Entries of a `pg_restore -l` listing; comment lines (';') and blank lines are skipped. */
export function parseTocListing(listing: string, encoding: ArchiveEncoding = UTF8_ARCHIVE): Toc {
  const entries: TocEntry[] = [];
  for (const line of listing.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const tableoid = Number(m[2]);
    const rest = m[3]!;
    const desc = descOf(tableoid, rest);
    entries.push({ dumpId: Number(m[1]), tableoid, desc, words: rest.slice(desc.length + 1) });
  }
  return { entries, encoding };
}

/** The desc of an entry: a relation kind for pg_class objects, one of the others for the rest (else its first word). */
function descOf(tableoid: number, rest: string): string {
  const known: readonly string[] = tableoid === PG_CLASS ? RELATION_DESCS : OTHER_DESCS;
  return known.find((d) => rest.startsWith(`${d} `)) ?? rest.split(' ', 1)[0]!;
}

/** The relations of the archive: what the object check looks for in the target. */
export function relationEntries(toc: Toc): Array<TocEntry & { desc: RelationDesc }> {
  return toc.entries.filter((e): e is TocEntry & { desc: RelationDesc } => e.tableoid === PG_CLASS && (RELATION_DESCS as readonly string[]).includes(e.desc));
}

/** The extensions the archive creates (`CREATE EXTENSION`): each must be available on the target. */
export function extensionNames(toc: Toc): string[] {
  return toc.entries
    .filter((e) => e.tableoid === PG_EXTENSION && e.desc === 'EXTENSION')
    .map((e) => {
      // "- <name> <owner>": an extension has no schema of its own, and its name holds no space.
      const words = e.words.split(' ');
      return words[1] ?? '';
    })
    .filter(Boolean);
}

/** Whether the archive holds table data at all (a schema-only dump does not). */
export function hasTableData(toc: Toc): boolean {
  return toc.entries.some((e) => e.tableoid === 0 && e.desc === 'TABLE DATA');
}

/**
 * `pg_restore -l` of the verified archive, read once per run, in the archive's encoding (archive-script.ts
 * reads it: the listing may run while it does, and is decoded once it is known).
 */
export async function readToc(
  archivePath: string,
  pgRestore: string,
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
  encodingOf: ArchiveEncoding | Promise<ArchiveEncoding>,
): Promise<Toc> {
  const r = await execa(pgRestore, ['-l', archivePath], { env, extendEnv: false, reject: false, stdin: 'ignore', cancelSignal: signal, encoding: 'buffer' });
  if (signal.aborted) throw new InterruptedError("Interrupted while reading the archive's table of contents.");
  if (r.exitCode !== 0) {
    throw new LocalToolError(`pg_restore -l could not list the archive: ${scrubber.scrub(Buffer.from(r.stderr).toString('utf8').trim().split('\n')[0] ?? '')}`);
  }
  const encoding = await encodingOf;
  return parseTocListing(encoding.decode(r.stdout), encoding);
}
