import { describe, expect, it } from 'vitest';
import { canRead, maxArchiveVersion, minPgRestoreMajor, parseArchiveHeader, sourceServerMajor } from '../../src/restore/archive/archive.js';
import { ExitCode } from '../../src/exit-codes.js';

/** A custom-format header as pg_dump writes it (ReadHead in pg_backup_archiver.c). */
function header(major: number, minor: number, pgDump = '15.18'): Buffer {
  const int = (v: number) => Buffer.from([v < 0 ? 1 : 0, Math.abs(v) & 0xff, 0, 0, 0]);
  const str = (s: string) => Buffer.concat([int(Buffer.byteLength(s)), Buffer.from(s)]);
  const compression = minor >= 15 ? Buffer.from([0]) : int(-1);
  return Buffer.concat([
    Buffer.from('PGDMP'),
    Buffer.from([major, minor, 0, 4, 8, 1]),
    compression,
    ...[0, 1, 2, 3, 4, 126, 0].map(int),
    str('orders'),
    str('15.18 (Debian)'),
    str(pgDump),
  ]);
}

describe('pg_dump archive header', () => {
  it('reads the format version and the pg_dump version', () => {
    expect(parseArchiveHeader(header(1, 14))).toMatchObject({ format: 'custom', version: '1.14', pgDumpVersion: '15.18' });
    expect(parseArchiveHeader(header(1, 16, '17.2'))).toMatchObject({ version: '1.16', pgDumpVersion: '17.2' });
  });

  it('reads only the fields an older format has (ReadHead): no version strings before 1.10, no offset size before 1.7', () => {
    const int = (v: number) => Buffer.from([v < 0 ? 1 : 0, Math.abs(v) & 0xff, 0, 0, 0]);
    const str = (s: string) => Buffer.concat([int(Buffer.byteLength(s)), Buffer.from(s)]);
    // What follows the header is the TOC: its entry count and first entry must not be read as versions.
    const toc = Buffer.concat([int(23), int(3370), int(0), str('0'), str('0'), str('ENCODING')]);
    const date = [0, 1, 2, 3, 4, 105, 0].map(int);
    // 1.9 (pg_dump 8.0 and older): offset size, compression level, date and database name, no version strings.
    const v19 = Buffer.concat([Buffer.from('PGDMP'), Buffer.from([1, 9, 0, 4, 8, 1]), int(-1), ...date, str('orders'), toc]);
    expect(parseArchiveHeader(v19)).toEqual({ format: 'custom', version: '1.9', major: 1, minor: 9 });
    // 1.6: no offset size byte, so the format is the byte after the int size.
    const v16 = Buffer.concat([Buffer.from('PGDMP'), Buffer.from([1, 6, 0, 4, 1]), int(0), ...date, str('orders'), toc]);
    expect(parseArchiveHeader(v16)).toEqual({ format: 'custom', version: '1.6', major: 1, minor: 6 });
  });

  it('reads the server version beside the pg_dump version, 1.15 and later included', () => {
    expect(parseArchiveHeader(header(1, 14))).toMatchObject({ serverVersion: '15.18 (Debian)', pgDumpVersion: '15.18' });
    expect(parseArchiveHeader(header(1, 15, '16.4'))).toMatchObject({ version: '1.15', serverVersion: '15.18 (Debian)', pgDumpVersion: '16.4' });
  });

  it('refuses a file that is not a pg_dump archive with the integrity exit code', () => {
    expect(() => parseArchiveHeader(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x50, 0x4b, 0x03, 0x04, 0, 0, 0]))).toThrow(
      expect.objectContaining({ exitCode: ExitCode.integrity }),
    );
  });

  it('refuses an intact plain-SQL dump or a gzip file as a format svc does not restore (exit 11, not the integrity code), naming it', () => {
    expect(() => parseArchiveHeader(Buffer.from('--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\n'))).toThrow(
      expect.objectContaining({ exitCode: ExitCode.localTool, message: expect.stringContaining('a plain-SQL dump (pg_dump -Fp)') }),
    );
    expect(() => parseArchiveHeader(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0, 0]))).toThrow(
      expect.objectContaining({ exitCode: ExitCode.localTool, message: expect.stringContaining('gzip-compressed') }),
    );
  });

  it('which pg_restore majors read an archive, and the oldest one that does', () => {
    const v116 = parseArchiveHeader(header(1, 16, '17.2'));
    expect(canRead(v116, 15)).toBe(false);
    expect(canRead(v116, 17)).toBe(true);
    expect(minPgRestoreMajor(v116)).toBe(17);
    expect(minPgRestoreMajor(parseArchiveHeader(header(1, 15)))).toBe(16);
    expect(minPgRestoreMajor(parseArchiveHeader(header(1, 14)))).toBe(12);
    expect(minPgRestoreMajor(parseArchiveHeader(header(1, 17)))).toBeUndefined();
    expect(canRead(parseArchiveHeader(header(1, 14)), 15)).toBe(true);
    expect(maxArchiveVersion(16)).toEqual([1, 15]);
    expect(sourceServerMajor(v116)).toBe(15);
  });
});
