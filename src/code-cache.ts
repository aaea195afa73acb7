import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
  const require = createRequire(path);
  const { size, mtimeMs } = statSync(path);
  // One cache per installed file: two installs of svc (or a build and an install) never evict each other's.
  const prefix = `${basename(path)}-${fnv1a(path)}-`;
  const file = join(codeCacheDir(env), `${prefix}${process.version}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(file);
  } catch {
    // None yet, or none readable: compiled from the source, and kept at exit.
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(path, 'utf8')}\n})`, { filename: path, cachedData });
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, path, dirname(path));
  // At exit, the code cache holds the functions this run compiled as well, not only the top level.
  const setSince = flagsSet.length;
  if (!cachedData || script.cachedDataRejected) process.once('exit', () => keep(script, file, prefix, flagsSet.slice(setSince)));
  return module.exports;
}

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
