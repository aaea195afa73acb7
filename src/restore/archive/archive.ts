import { open } from 'node:fs/promises';
import { IntegrityError, LocalToolError } from '../../errors.js';

export interface ArchiveHeader {
  format: 'custom' | 'directory' | 'tar' | 'unknown';
  /** Archive format version, e.g. "1.14"; undefined for tar (its version lives in toc.dat). */
  version?: string;
  major?: number;
  minor?: number;
  /** pg_dump's version string, when the header carries it (archive 1.10+). */
  pgDumpVersion?: string;
  serverVersion?: string;
}

const FORMATS = ['unknown', 'custom', 'unknown', 'tar', 'unknown', 'directory'] as const;

/** Reads the pg_dump archive header (pg_backup_archiver.c: ReadHead) from the verified file. */
export async function readArchiveHeader(path: string): Promise<ArchiveHeader> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return parseArchiveHeader(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

export function parseArchiveHeader(buf: Buffer): ArchiveHeader {
  if (buf.length >= 262 && buf.subarray(257, 262).toString('latin1') === 'ustar') return tarHeader(buf);
  refuseOtherFormats(buf);
  if (buf.length < 11 || buf.subarray(0, 5).toString('latin1') !== 'PGDMP') {
    throw new IntegrityError(
      'The artifact is not a pg_dump archive (no PGDMP header): nothing was restored.',
      'The backup may not be a custom-format dump; check it with `svc backups get` and contact support with the request id.',
    );
  }
  const major = buf[5]!;
  const minor = buf[6]!;
  // Which fields the header holds depends on its version, as in ReadHead.
  const since = (min: number) => major > 1 || (major === 1 && minor >= min);
  let pos = since(1) ? 8 : 7; // a revision byte after 1.0
  const intSize = buf[pos++]!;
  if (since(7)) pos++; // offset size
  const header: ArchiveHeader = { format: FORMATS[buf[pos++]!] ?? 'unknown', version: `${major}.${minor}`, major, minor };
  if (header.format === 'directory') throw unsupportedFormat('the table of contents of a directory-format archive (pg_dump -Fd)');
  const readInt = (): number | undefined => {
    if (pos + 1 + intSize > buf.length) return undefined;
    const negative = buf[pos] !== 0;
    let value = 0;
    for (let i = 0; i < intSize; i++) value += buf[pos + 1 + i]! * 2 ** (8 * i);
    pos += 1 + intSize;
    return negative ? -value : value;
  };
  const readStr = (): string | undefined => {
    const len = readInt();
    if (len === undefined || len < 0 || pos + len > buf.length) return undefined;
    const s = buf.subarray(pos, pos + len).toString('utf8');
    pos += len;
    return s;
  };
  try {
    if (since(15))
      pos += 1; // compression_algorithm byte
    else if (since(4))
      readInt(); // compression level
    else if (since(2)) pos += 1; // compression level, as a byte before 1.4
    if (!since(4)) return header;
    for (let i = 0; i < 7; i++) readInt(); // creation time: sec, min, hour, mday, mon, year, isdst
    readStr(); // database name
    if (!since(10)) return header;
    header.serverVersion = readStr();
    header.pgDumpVersion = readStr();
  } catch {
    // Older or truncated headers simply lack the version strings.
  }
  return header;
}

/**
 * Formats svc does not restore, told apart from a damaged file (cli-contract 7.13): the file passed
 * its size and SHA-256 checks, so it is intact, and the refusal is exit 11 naming the format, not
 * the integrity code. pg_restore reads a directory archive only as a directory, never as one file.
 */
function unsupportedFormat(what: string): LocalToolError {
  return new LocalToolError(
    `The artifact is ${what}: svc restores pg_dump's custom (-Fc) and tar (-Ft) archives only. Nothing was restored.`,
    'Restore this file by hand (a plain-SQL dump with psql -f; a directory archive with pg_restore on the unpacked directory), or back the database up in custom format.',
  );
}

function refuseOtherFormats(buf: Buffer): void {
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b)
    throw unsupportedFormat('gzip-compressed (a compressed plain-SQL dump or a packed directory-format archive)');
  const text = buf.subarray(0, 1024).toString('latin1');
  // pg_dump -Fp starts with its banner comment; a hand-made SQL file with a statement.
  if (!text.includes('\0') && (text.includes('PostgreSQL database dump') || /^\s*(--|SET |CREATE |BEGIN|SELECT |\\)/i.test(text))) {
    throw unsupportedFormat('a plain-SQL dump (pg_dump -Fp), not an archive pg_restore reads');
  }
}

/**
 * A tar file: pg_dump -Ft writes toc.dat first, uncompressed throughout (tar format has no
 * compression). A directory-format archive packed with tar has its files under a directory, or a
 * toc.dat whose header (which says "tar" there too) records compression: pg_restore would refuse it
 * only after reading it, with "compression is not supported by tar archive format".
 */
function tarHeader(buf: Buffer): ArchiveHeader {
  const packed = unsupportedFormat('a directory-format archive (pg_dump -Fd) packed with tar');
  const first = buf.subarray(0, 100).toString('latin1').replace(/\0.*$/s, '');
  if (first !== 'toc.dat') {
    if (first.endsWith('/') || first.endsWith('/toc.dat')) throw packed;
    return { format: 'tar' };
  }
  const inner = buf.subarray(512);
  if (inner.length >= 16 && inner.subarray(0, 5).toString('latin1') === 'PGDMP') {
    const [major, minor, , intSize] = [inner[5]!, inner[6]!, inner[7]!, inner[8]!];
    const since = (min: number) => major > 1 || (major === 1 && minor >= min);
    const at = since(7) ? 11 : 10;
    // 1.15 and later: a compression algorithm byte (0: none); before: the compression level as an int (sign byte, then the value).
    const compressed = since(15) ? inner[at] !== 0 : inner.subarray(at + 1, at + 1 + intSize).some((b) => b !== 0);
    if (compressed) throw packed;
  }
  return { format: 'tar' };
}

/** Highest archive version each pg_restore major can read (K_VERS_MAX in pg_backup_archiver.h). */
export function maxArchiveVersion(pgRestoreMajor: number): [number, number] {
  if (pgRestoreMajor >= 17) return [1, 16];
  if (pgRestoreMajor === 16) return [1, 15];
  if (pgRestoreMajor >= 12) return [1, 14];
  if (pgRestoreMajor === 11) return [1, 13];
  return [1, 12];
}

/** Whether a pg_restore of `pgRestoreMajor` reads the archive (a tar archive's version is not in its header: yes). */
export function canRead(header: ArchiveHeader, pgRestoreMajor: number): boolean {
  if (header.major === undefined || header.minor === undefined) return true;
  const [maxMajor, maxMinor] = maxArchiveVersion(pgRestoreMajor);
  return header.major < maxMajor || (header.major === maxMajor && header.minor <= maxMinor);
}

/** The oldest pg_restore major that reads the archive; undefined for a format newer than any svc knows. */
export function minPgRestoreMajor(header: ArchiveHeader): number | undefined {
  return [10, 11, 12, 16, 17].find((major) => canRead(header, major));
}

/** The source server's major version, from the header's server version string ("15.18 (Debian ...)"). */
export function sourceServerMajor(header: ArchiveHeader): number | undefined {
  const m = /^(\d+)/.exec(header.serverVersion ?? '');
  return m ? Number(m[1]) : undefined;
}
