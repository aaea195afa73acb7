import { open } from 'node:fs/promises';
import { IntegrityError } from '../errors.js';

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
  if (buf.length >= 262 && buf.subarray(257, 262).toString('latin1') === 'ustar') return { format: 'tar' };
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
    if (since(15)) pos += 1; // compression_algorithm byte
    else if (since(4)) readInt(); // compression level
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
