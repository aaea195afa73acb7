import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { cacheDir } from './config/paths.js';

/** Where V8's compiled code of svc's files is kept (bin/svc names the same directory for Node 22+). */
export const codeCacheDir = (env: Record<string, string | undefined>) => join(cacheDir(env), 'code-cache');

/** The V8 flags this process set through setV8Flags, in order. */
const flagsSet: string[] = [];

/**
 * Sets V8 flags (`--no-x` or `--x`), remembered here: V8 ties cached code to its flags, so the code
 * cache of a file compiled before them is made, at exit, with them turned back.
 */
export function setV8Flags(...flags: string[]): void {
  const { setFlagsFromString } = process.getBuiltinModule('node:v8');
  for (const flag of flags) {
    setFlagsFromString(flag);
    flagsSet.push(flag);
  }
}

/**
 * The CommonJS file `path` of the bundle, loaded as require() loads it, with V8's compiled code of
 * it kept between runs: the file runs as a vm.Script whose cached data lives in svc's cache
 * directory, named by the file's path, size and time and the Node version. The data is made at the
 * exit of a run, so it holds every function that run compiled, not only the top level (Node 22's
 * own compile cache, which bin/svc turns on for the ES-module chunks, keeps the top level only:
 * each run compiled again every undici function a request calls). Node 20 has no cache at all.
 * A cache file V8 rejects (corrupt, another V8) is replaced; one that cannot be read or written
 * is no cache: never an error.
 */
export function requireWithCodeCache(path: string, env: Record<string, string | undefined> = process.env): unknown {
  // Kept in require.cache as require() keeps a file: each file runs once however many chunks load it.
  const require = requireIn(dirname(path));
  const known = require.cache[path];
  if (known) return known.exports;
  const { size, mtimeMs } = statSync(path);
  // One cache per installed file: two installs of svc (or a build and an install) never evict each other's.
  const prefix = `${basename(path)}-${fnv1a(path)}-`;
  const file = join(dirOf(env), `${prefix}${process.version}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(file);
  } catch {
    // None yet, or none readable: compiled from the source, and kept at exit.
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(path, 'utf8')}\n})`, { filename: path, cachedData });
  const module = Object.assign(new Module(path), { filename: path, loaded: true });
  // Flags the file sets as it runs (a chunk that loads undici) came after it compiled: turned back for its cache.
  const setSince = flagsSet.length;
  require.cache[path] = module;
  try {
    (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, path, dirname(path));
  } catch (err) {
    delete require.cache[path];
    throw err;
  }
  // At exit, the code cache holds the functions this run compiled as well, not only the top level.
  if (!cachedData || script.cachedDataRejected) {
    // One exit listener for all the files of a run (a verb loads a few dozen chunks).
    if (!toKeep.length) process.once('exit', () => toKeep.forEach((k) => k()));
    toKeep.push(() => keep(script, file, prefix, flagsSet.slice(setSince)));
  }
  return module.exports;
}

/** The cache directory, worked out once per run, not for each of the thirty files a verb loads. */
let lastDir: { xdg?: string; home?: string; dir: string } | undefined;
function dirOf(env: Record<string, string | undefined>): string {
  const { XDG_CACHE_HOME: xdg, HOME: home } = env;
  if (!lastDir || lastDir.xdg !== xdg || lastDir.home !== home) lastDir = { xdg, home, dir: codeCacheDir(env) };
  return lastDir.dir;
}

/** One require() per directory: the files of dist/chunks resolve the same names, and making one costs a walk of the path. */
const requires = new Map<string, NodeJS.Require>();
const requireIn = (dir: string): NodeJS.Require => requires.get(dir) ?? requires.set(dir, createRequire(join(dir, 'index.js'))).get(dir)!;

/** The caches to make at exit: files this run compiled without one. */
const toKeep: (() => void)[] = [];

/**
 * The chunk `name` of the bundle in `dir` (the target of an import in the sources, which the build
 * makes a CommonJS file of: tools/bundle.mjs), loaded through requireWithCodeCache.
 */
export const requireChunk = (dir: string, name: string): unknown => requireWithCodeCache(join(dir, name));

/** requireChunk, named apart for the target of a dynamic import(), which loads on first use (test/e2e/startup-graph.test.ts tells them apart). */
export const importChunk = requireChunk;

/** FNV-1a, 32 bits, in hex: a short name for a path (node:crypto is not loaded for it). */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

function keep(script: Script, file: string, prefix: string, flagsSince: string[]): void {
  const { setFlagsFromString } = flagsSince.length ? process.getBuiltinModule('node:v8') : { setFlagsFromString: () => {} };
  const undo = (flag: string) => (flag.startsWith('--no-') ? `--${flag.slice(5)}` : `--no-${flag.slice(2)}`);
  try {
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The caches of earlier builds and Node versions of this file go.
    for (const old of readdirSync(dir)) if (old.startsWith(prefix) && join(dir, old) !== file) rmSync(join(dir, old), { force: true });
    const tmp = `${file}.${process.pid}.tmp`;
    for (const flag of [...flagsSince].reverse()) setFlagsFromString(undo(flag));
    const data = script.createCachedData();
    for (const flag of flagsSince) setFlagsFromString(flag);
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // An unwritable cache directory costs the next run its compile time, nothing else.
  }
}
