/**
 * Custom-format pg_dump archives of the formats newer pg_dumps write, made from a real one: the
 * machine has only pg_dump 15 (archive 1.14), and the registry's server packages carry no pg_dump.
 *
 * The layout follows PostgreSQL's pg_backup_archiver.c (WriteHead/ReadHead, WriteToc/ReadToc) and
 * pg_backup_custom.c (_WriteExtraToc, _CloseArchive): "PGDMP", the format version bytes, int and
 * offset sizes, the format byte, then the compression (an int level up to 1.14, one
 * `compression_algorithm` byte from 1.15), the creation time as 7 ints, and the database name,
 * server version and pg_dump version strings; then the TOC, whose entries gain a `relkind` int after
 * the table access method in 1.16, each ending with its data offset; then the data blocks, which no
 * version changed. The TOC's data offsets are absolute file positions, so a header or TOC that
 * changes size moves every one of them: they are rewritten too, and the result is a whole,
 * consistent archive, not only a header.
 */

/** K_VERS_MINOR of each pg_dump major: 1.14 up to 15, 1.15 in 16, 1.16 in 17 and 18. */
export function archiveMinorOf(pgDumpMajor: number): 14 | 15 | 16 {
  if (pgDumpMajor >= 17) return 16;
  if (pgDumpMajor === 16) return 15;
  if (pgDumpMajor >= 12) return 14;
  throw new Error(`pg_dump ${pgDumpMajor} writes an archive format older than 1.14, which this module does not write`);
}

/** pg_compress_specification's algorithm (common/compression.h). */
const GZIP = 1;
const NONE = 0;
/** zlib's Z_DEFAULT_COMPRESSION, the level a 1.14 header records for gzip at its default. */
const DEFAULT_LEVEL = -1;
const K_OFFSET_POS_SET = 2;
const CUSTOM_FORMAT = 1;
/** The block type of table data (pg_backup_archiver.h). */
export const BLK_DATA = 1;
const RELKIND_TABLE = 'r'.charCodeAt(0);
const RELKIND_PARTITIONED = 'p'.charCodeAt(0);

/** A TOC string exactly as stored (bytes; null for a NULL string). */
type Str = Buffer | null;

export interface TocEntry {
  dumpId: number;
  hadDumper: number;
  tableoid: Str;
  oid: Str;
  tag: Str;
  desc: string;
  section: number;
  defn: Str;
  dropStmt: Str;
  copyStmt: Str;
  namespace: Str;
  tablespace: Str;
  tableam: Str;
  /** 1.16+ only. */
  relkind: number | undefined;
  owner: Str;
  withOids: Str;
  deps: Buffer[];
  dataState: number;
  dataPos: number;
}

export interface CustomArchive {
  minor: 14 | 15 | 16;
  rev: number;
  intSize: number;
  offSize: number;
  /** 1.15+ `compression_algorithm`; for 1.14 the one its level implies (0 none, else gzip). */
  algorithm: number;
  /** The 1.14 header's compression level, when the archive is 1.14. */
  level: number | undefined;
  created: number[];
  dbName: Str;
  serverVersion: string | null;
  pgDumpVersion: string | null;
  entries: TocEntry[];
  /** Where the data blocks start, and the bytes from there to the end. */
  dataStart: number;
  data: Buffer;
}

/** Reads a custom-format archive of format 1.14, 1.15 or 1.16 whole (header and TOC). */
export function readCustomArchive(bytes: Buffer): CustomArchive {
  if (bytes.subarray(0, 5).toString('latin1') !== 'PGDMP') throw new Error('not a pg_dump custom-format archive (no PGDMP)');
  const [major, minor, rev, intSize, offSize, format] = [...bytes.subarray(5, 11)] as number[];
  if (major !== 1 || (minor !== 14 && minor !== 15 && minor !== 16)) throw new Error(`archive format ${major}.${minor}: only 1.14, 1.15 and 1.16 are handled`);
  if (format !== CUSTOM_FORMAT) throw new Error(`archive format byte ${format}: only the custom format (1) is handled`);
  let pos = 11;
  const need = (n: number) => {
    if (pos + n > bytes.length) throw new Error(`truncated archive at byte ${pos}`);
  };
  const byte = () => (need(1), bytes[pos++]!);
  const int = () => {
    need(1 + intSize!);
    const negative = bytes[pos] !== 0;
    let v = 0;
    for (let i = 0; i < intSize!; i++) v += bytes[pos + 1 + i]! * 2 ** (8 * i);
    pos += 1 + intSize!;
    return negative ? -v : v;
  };
  const str = (): Str => {
    const len = int();
    if (len < 0) return null;
    need(len);
    pos += len;
    return bytes.subarray(pos - len, pos);
  };
  const text = (s: Str) => (s === null ? null : s.toString('utf8'));

  let level: number | undefined;
  let algorithm: number;
  if (minor >= 15) algorithm = byte();
  else {
    level = int();
    algorithm = level === 0 ? NONE : GZIP;
  }
  const created = Array.from({ length: 7 }, int);
  const dbName = str();
  const serverVersion = text(str());
  const pgDumpVersion = text(str());

  const entries: TocEntry[] = [];
  for (let n = int(), i = 0; i < n; i++) {
    const dumpId = int();
    const hadDumper = int();
    const [tableoid, oid, tag] = [str(), str(), str()];
    const desc = text(str()) ?? '';
    const section = int();
    const [defn, dropStmt, copyStmt, namespace, tablespace, tableam] = [str(), str(), str(), str(), str(), str()];
    const relkind = minor >= 16 ? int() : undefined;
    const [owner, withOids] = [str(), str()];
    const deps: Buffer[] = [];
    for (let dep = str(); dep !== null; dep = str()) deps.push(dep);
    const dataState = byte();
    need(offSize!);
    let dataPos = 0;
    for (let b = 0; b < offSize!; b++) dataPos += bytes[pos + b]! * 2 ** (8 * b);
    pos += offSize!;
    entries.push({
      dumpId,
      hadDumper,
      tableoid,
      oid,
      tag,
      desc,
      section,
      defn,
      dropStmt,
      copyStmt,
      namespace,
      tablespace,
      tableam,
      relkind,
      owner,
      withOids,
      deps,
      dataState,
      dataPos,
    });
  }
  return {
    minor,
    rev: rev!,
    intSize: intSize!,
    offSize: offSize!,
    algorithm,
    level,
    created,
    dbName,
    serverVersion,
    pgDumpVersion,
    entries,
    dataStart: pos,
    data: bytes.subarray(pos),
  };
}

/** Header and TOC of `archive` in format 1.`minor`, with every data offset moved by `shift`. */
function writeHeadAndToc(archive: CustomArchive, minor: 14 | 15 | 16, shift: number): Buffer {
  const out: Buffer[] = [];
  const byte = (v: number) => out.push(Buffer.from([v]));
  const int = (v: number) => {
    const b = Buffer.alloc(1 + archive.intSize);
    b[0] = v < 0 ? 1 : 0;
    for (let i = 0, m = Math.abs(v); i < archive.intSize; i++, m = Math.floor(m / 256)) b[1 + i] = m % 256;
    out.push(b);
  };
  const str = (s: Str | string) => {
    if (s === null) return int(-1);
    const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
    int(b.length);
    out.push(b);
  };

  out.push(Buffer.from('PGDMP'), Buffer.from([1, minor, archive.rev, archive.intSize, archive.offSize, CUSTOM_FORMAT]));
  if (minor >= 15) byte(archive.algorithm);
  else if (archive.algorithm === NONE || archive.algorithm === GZIP) int(archive.level ?? (archive.algorithm === NONE ? 0 : DEFAULT_LEVEL));
  else throw new Error(`compression algorithm ${archive.algorithm} has no 1.14 form (gzip or none only)`);
  archive.created.forEach(int);
  str(archive.dbName);
  str(archive.serverVersion);
  str(archive.pgDumpVersion);

  int(archive.entries.length);
  for (const e of archive.entries) {
    int(e.dumpId);
    int(e.hadDumper);
    [e.tableoid, e.oid, e.tag, e.desc].forEach(str);
    int(e.section);
    [e.defn, e.dropStmt, e.copyStmt, e.namespace, e.tablespace, e.tableam].forEach(str);
    if (minor >= 16) int(e.relkind ?? relkindOf(e));
    [e.owner, e.withOids].forEach(str);
    e.deps.forEach(str);
    str(null);
    byte(e.dataState);
    const off = Buffer.alloc(archive.offSize);
    let at = e.dataState === K_OFFSET_POS_SET ? e.dataPos + shift : e.dataPos;
    for (let b = 0; b < archive.offSize; b++, at = Math.floor(at / 256)) off[b] = at % 256;
    out.push(off);
  }
  return Buffer.concat(out);
}

/** What pg_dump 17 records for an entry (pg_dump.c: relkind only on TABLE entries). */
function relkindOf(e: TocEntry): number {
  if (e.desc !== 'TABLE') return 0;
  return /\)\s*PARTITION BY /.test(e.defn?.toString('utf8') ?? '') ? RELKIND_PARTITIONED : RELKIND_TABLE;
}

/**
 * The same archive in format 1.`minor` (14, 15 or 16), its version strings replaced where given.
 * Large objects changed shape in 1.16 (BLOB METADATA), so archives holding them are refused there.
 */
export function rewriteArchive(bytes: Buffer, minor: 14 | 15 | 16, versions: { pgDumpVersion?: string; serverVersion?: string } = {}): Buffer {
  const archive = readCustomArchive(bytes);
  if (minor >= 16 !== archive.minor >= 16 && archive.entries.some((e) => e.desc.startsWith('BLOB'))) {
    throw new Error('an archive with large objects cannot move across format 1.16 (its BLOB entries changed shape)');
  }
  const next: CustomArchive = {
    ...archive,
    serverVersion: versions.serverVersion ?? archive.serverVersion,
    pgDumpVersion: versions.pgDumpVersion ?? archive.pgDumpVersion,
    level: minor === archive.minor ? archive.level : undefined,
  };
  // The data's new start depends only on sizes, not on the offsets' values: measure, then write.
  const shift = writeHeadAndToc(next, minor, 0).length - archive.dataStart;
  return Buffer.concat([writeHeadAndToc(next, minor, shift), archive.data]);
}

/**
 * What pg_dump `pgDumpVersion` (e.g. "17.10") would have written for the same dump of a server of
 * `serverVersion` (default the same): its archive format, header and TOC, and the data as it is.
 */
export function asWrittenBy(bytes: Buffer, pgDumpVersion: string, serverVersion = pgDumpVersion): Buffer {
  return rewriteArchive(bytes, archiveMinorOf(Number.parseInt(pgDumpVersion, 10)), { pgDumpVersion, serverVersion });
}

/** Each entry whose data the archive locates: the block at its offset must be that entry's (BLK_DATA, its dumpId). */
export function dataBlocksAt(bytes: Buffer): { dumpId: number; desc: string; blockType: number; blockDumpId: number }[] {
  const archive = readCustomArchive(bytes);
  return archive.entries
    .filter((e) => e.dataState === K_OFFSET_POS_SET)
    .map((e) => {
      const at = e.dataPos;
      let id = 0;
      for (let i = 0; i < archive.intSize; i++) id += bytes[at + 2 + i]! * 2 ** (8 * i);
      return { dumpId: e.dumpId, desc: e.desc, blockType: bytes[at]!, blockDumpId: bytes[at + 1] ? -id : id };
    });
}
