import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, test } from 'vitest';
import { parseArchiveHeader } from '../../src/restore/archive/archive.js';
import { archiveMinorOf, asWrittenBy, BLK_DATA, dataBlocksAt, readCustomArchive, rewriteArchive } from './archive-versions.js';
import { findPgBinDir, pgSkipReason } from './pg-cluster.js';
import { FIXTURES_DIR } from './fixtures.js';
import { readDumpHeader } from './seed.js';

/** A real pg_dump 15 archive (format 1.14) of the seed database. */
const SEED = readFileSync(join(FIXTURES_DIR, 'artifacts', 'acme-orders.pgdump'));
const seed = readCustomArchive(SEED);
const work = mkdtempSync(join(tmpdir(), 'svc-archvers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function file(name: string, bytes: Buffer): string {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
}

describe('the seed archive as read', () => {
  test('is format 1.14 at gzip default level, and every data offset finds its own block', () => {
    expect(seed).toMatchObject({ minor: 14, intSize: 4, offSize: 8, level: -1, algorithm: 1, pgDumpVersion: expect.stringMatching(/^15\./) });
    expect(seed.entries.map((e) => e.desc)).toEqual(expect.arrayContaining(['TABLE', 'TABLE DATA', 'SEQUENCE SET', 'INDEX', 'FK CONSTRAINT']));
    const blocks = dataBlocksAt(SEED);
    expect(blocks.map((b) => b.desc)).toEqual(['TABLE DATA', 'TABLE DATA']);
    for (const b of blocks) expect(b).toMatchObject({ blockType: BLK_DATA, blockDumpId: b.dumpId });
    expect(seed.entries.find((e) => e.desc === 'TABLE DATA')!.dataPos).toBe(seed.dataStart);
  });
});

describe.each([
  { pgDump: '16.14', minor: 15 as const },
  { pgDump: '17.10', minor: 16 as const },
])('as pg_dump $pgDump writes it (format 1.$minor)', ({ pgDump, minor }) => {
  const bytes = asWrittenBy(SEED, pgDump);

  test('the header: version bytes, one compression_algorithm byte (gzip), same creation time, new version strings', () => {
    expect(archiveMinorOf(Number.parseInt(pgDump, 10))).toBe(minor);
    expect([...bytes.subarray(0, 12)]).toEqual([...Buffer.from('PGDMP'), 1, minor, 0, 4, 8, 1, 1]);
    // The creation time follows at once: the 1.14 file has it 4 bytes later, after a 5-byte int level.
    expect(bytes.subarray(12, 12 + 35)).toEqual(SEED.subarray(16, 16 + 35));
    // A 1-byte algorithm for a 5-byte level, two version strings of a new length, and in 1.16 a
    // relkind int (1 + intSize bytes) in every TOC entry.
    const strings = 2 * Buffer.byteLength(pgDump) - Buffer.byteLength(seed.serverVersion!) - Buffer.byteLength(seed.pgDumpVersion!);
    expect(bytes.length).toBe(SEED.length - 4 + strings + (minor >= 16 ? 5 * seed.entries.length : 0));
    const read = readCustomArchive(bytes);
    expect(read).toMatchObject({ minor, algorithm: 1, level: undefined, serverVersion: pgDump, pgDumpVersion: pgDump, created: seed.created });
    expect(read.dbName).toEqual(seed.dbName);
  });

  test('the TOC: the same entries, relkind only in 1.16 (r on tables), every data offset moved onto its block', () => {
    const read = readCustomArchive(bytes);
    expect(read.entries.map((e) => [e.dumpId, e.desc, e.tag?.toString()])).toEqual(seed.entries.map((e) => [e.dumpId, e.desc, e.tag?.toString()]));
    expect(read.entries.map((e) => e.relkind)).toEqual(seed.entries.map((e) => (minor < 16 ? undefined : e.desc === 'TABLE' ? 'r'.charCodeAt(0) : 0)));
    expect(read.data).toEqual(seed.data);
    const blocks = dataBlocksAt(bytes);
    expect(blocks).toHaveLength(2);
    for (const b of blocks) expect(b).toMatchObject({ blockType: BLK_DATA, blockDumpId: b.dumpId });
  });

  test("both header readers (the engine's and the test one) read the format and the version strings", async () => {
    expect(parseArchiveHeader(bytes)).toEqual({ format: 'custom', version: `1.${minor}`, major: 1, minor, serverVersion: pgDump, pgDumpVersion: pgDump });
    expect(await readDumpHeader(file(`seed-1.${minor}.pgdump`, bytes))).toEqual({ archiveFormatVersion: `1.${minor}`, pgDumpVersion: pgDump });
    const older = asWrittenBy(SEED, pgDump, '15.18 (Debian 15.18-0+deb12u1)');
    expect(parseArchiveHeader(older)).toMatchObject({ serverVersion: '15.18 (Debian 15.18-0+deb12u1)', pgDumpVersion: pgDump });
  });

  test('rewritten back to 1.14 with the old version strings, it is the original archive byte for byte', () => {
    const back = rewriteArchive(bytes, 14, { pgDumpVersion: seed.pgDumpVersion!, serverVersion: seed.serverVersion! });
    expect(back.equals(SEED)).toBe(true);
  });
});

describe.skipIf(!!pgSkipReason())("the machine's pg_restore 15", () => {
  const pgRestore = () => join(findPgBinDir()!, 'pg_restore');

  test.each([
    ['16.14', '1.15'],
    ['17.10', '1.16'],
    ['18.4', '1.16'],
  ])('refuses what pg_dump %s writes: "unsupported version (%s) in file header"', async (pgDump, version) => {
    const r = await execa(pgRestore(), ['-l', file(`by-${pgDump}.pgdump`, asWrittenBy(SEED, pgDump))], { reject: false, env: { LC_ALL: 'C' } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`pg_restore: error: unsupported version (${version}) in file header`);
  });

  test('lists a 1.14 archive that went through 1.16 and back exactly as the original', async () => {
    const list = async (bytes: Buffer, name: string) =>
      (await execa(pgRestore(), ['-l', file(name, bytes)])).stdout.split('\n').filter((l) => !l.startsWith(';'));
    const through = rewriteArchive(rewriteArchive(SEED, 16), 14);
    expect(await list(through, 'through-1.16.pgdump')).toEqual(await list(SEED, 'seed.pgdump'));
  });
});

describe('refusals', () => {
  test('not an archive, another format, an older version, a truncated TOC', () => {
    expect(() => readCustomArchive(Buffer.from('-- PostgreSQL database dump\n'))).toThrow('not a pg_dump custom-format archive (no PGDMP)');
    const directory = Buffer.from(SEED);
    directory[10] = 5;
    expect(() => readCustomArchive(directory)).toThrow('archive format byte 5: only the custom format (1) is handled');
    const older = Buffer.from(SEED);
    older[6] = 13;
    expect(() => readCustomArchive(older)).toThrow('archive format 1.13: only 1.14, 1.15 and 1.16 are handled');
    expect(() => readCustomArchive(SEED.subarray(0, 500))).toThrow(/^truncated archive at byte \d+$/);
    expect(() => archiveMinorOf(11)).toThrow(/older than 1\.14/);
  });
});
