/** Shared bench helpers: paths, temp files and cleanup, timing, peak RSS, fixture files. */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The built CLI as `npm run build` left it: see SVC. */
export const BUILT_SVC = join(ROOT, 'bin', 'svc');
export const NODE = process.execPath;
/** Node flags for a child that imports TypeScript sources (src/, test/support/): they run under tsx. */
export const TSX = ['--import', 'tsx'];
export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

// ---------------------------------------------------------------------------------------------
// Cleanup: everything a row creates (temp dirs, child processes, clusters) is registered here and
// undone in reverse order at exit, on Ctrl-C and on failure.

const cleanups = [];
let cleaning;

export function onCleanup(fn) {
  cleanups.push(fn);
  return fn;
}

export function cleanupAll() {
  cleaning ??= (async () => {
    while (cleanups.length) {
      const fn = cleanups.pop();
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`bench: cleanup step failed: ${err?.message ?? err}\n`);
      }
    }
  })().finally(() => {
    cleaning = undefined;
  });
  return cleaning;
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, () => {
    process.stderr.write(`\nbench: ${sig}, cleaning up\n`);
    cleanupAll().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// The svc the bench times: a copy of the built CLI (bin/svc, dist/, package.json, fixtures/) taken
// when the bench starts, in .bench-tmp/svc-<pid>/ inside the repository (so node_modules still
// resolves), removed when the process exits. Other work on this machine may rebuild dist/ while the
// bench runs; the copy keeps every row on the one bundle the bench started with.

function snapshotSvc() {
  if (!existsSync(join(ROOT, 'dist', 'chunks', 'start.cjs'))) return undefined;
  const dir = join(ROOT, '.bench-tmp', `svc-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const part of ['bin', 'dist', 'fixtures', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  process.on('exit', () => {
    rmSync(dir, { recursive: true, force: true });
    try {
      rmdirSync(join(ROOT, '.bench-tmp')); // only when empty: another bench may be using it
    } catch {
      // Not empty, or gone.
    }
  });
  return join(dir, 'bin', 'svc');
}

/** bin/svc of the copy; BUILT_SVC itself when there is no build (requireBuilt() then says so). */
export const SVC = snapshotSvc() ?? BUILT_SVC;

export function requireBuilt() {
  if (SVC === BUILT_SVC) throw new Error('dist/chunks/start.cjs is missing: run npm run build first (npm run bench does)');
}

/** process.env without proxy settings: the bench's servers are on loopback, and curl and svc must reach them directly. */
export function directEnv(env = process.env) {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !/^(https?|all|no)_proxy$/i.test(k)));
}

// ---------------------------------------------------------------------------------------------

/** A fresh private temp dir, removed at cleanup. */
export function tempDir(prefix = 'svc-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---------------------------------------------------------------------------------------------
// Tools

export function which(cmd) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, cmd))) return join(dir, cmd);
  }
  return undefined;
}

/** GNU time, for peak RSS (`%M`); `apt-get install -y time` where missing. */
export const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

export function requireTools(tools) {
  const missing = tools.filter((t) => !which(t));
  if (missing.length) {
    throw new Error(
      `missing ${missing.join(', ')} (Debian/Ubuntu: apt-get install -y ${missing.map((t) => (t === 'sha256sum' || t === 'tee' ? 'coreutils' : t)).join(' ')})`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Statistics

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export const fmtMs = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
export const fmtMiB = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;
export const fmtRate = (bytesPerMs) => `${((bytesPerMs * 1000) / MiB).toFixed(0)} MiB/s`;

// ---------------------------------------------------------------------------------------------
// Running and timing commands. The servers live in other processes, so blocking spawnSync is fine
// and gives the tightest wall-clock figure.

/** Runs a command to completion (as another user with `uid`/`gid`); throws with its stderr if it fails. Returns wall time in ms. */
export function timed(cmd, args, { env, input, cwd = ROOT, uid, gid } = {}) {
  const started = performance.now();
  const r = spawnSync(cmd, args, {
    cwd,
    env: env ?? process.env,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    maxBuffer: 256 * MiB,
    ...(uid === undefined ? {} : { uid, gid }),
  });
  const ms = performance.now() - started;
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`${[cmd, ...args].join(' ').slice(0, 300)} exited ${r.status ?? r.signal}:\n${String(r.stderr).slice(-2000)}`);
  }
  return { ms, stdout: r.stdout, stderr: String(r.stderr) };
}

/**
 * Interleaved rounds: every variant runs once per round, the order alternating between rounds,
 * so a burst of load on this shared machine hits all variants alike. Returns ms arrays by name.
 */
export function rounds(n, variants, { warmup = 1, between } = {}) {
  const names = Object.keys(variants);
  const out = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = 0; i < warmup; i++) for (const k of names) variants[k]();
  for (let r = 0; r < n; r++) {
    const order = r % 2 ? [...names].reverse() : names;
    for (const k of order) {
      out[k].push(variants[k]());
      between?.(k);
    }
  }
  return out;
}

/** rounds() for variants that return a promise of their ms (or of an object, for several figures per run). */
export async function asyncRounds(n, variants, { warmup = 1 } = {}) {
  const names = Object.keys(variants);
  const out = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = 0; i < warmup; i++) for (const k of names) await variants[k]();
  for (let r = 0; r < n; r++) {
    for (const k of r % 2 ? [...names].reverse() : names) out[k].push(await variants[k]());
  }
  return out;
}

/** Peak resident set size of a command, in bytes, measured by GNU time (%M is in KiB). */
export function peakRss(cmd, args, opts = {}) {
  if (!GNU_TIME) throw new Error('GNU time is missing (apt-get install -y time)');
  const dir = tempDir('svc-bench-rss-');
  const out = join(dir, 'rss');
  const { ms } = timed(GNU_TIME, ['-f', '%M', '-o', out, cmd, ...args], opts);
  const kib = Number(readFileSync(out, 'utf8').trim().split('\n').pop());
  rmSync(dir, { recursive: true, force: true });
  return { bytes: kib * 1024, ms };
}

/** Starts a long-lived helper process; resolves with its first stdout line parsed as JSON. */
export async function startHelper(cmd, args, { env, label }) {
  const child = spawn(cmd, args, { cwd: ROOT, env: env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr = (stderr + c).slice(-4000);
  });
  onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    child.kill('SIGTERM');
    await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let buf = '';
  for await (const chunk of child.stdout) {
    buf += chunk;
    // The first complete JSON document on stdout (the sandbox pretty-prints it over several lines).
    try {
      const info = JSON.parse(buf);
      child.stdout.resume();
      return { child, info };
    } catch {
      // Not complete yet.
    }
  }
  throw new Error(`${label} exited before it was ready:\n${stderr}`);
}

// ---------------------------------------------------------------------------------------------
// Fixture files

/**
 * Writes `bytes` bytes to `path` by streaming a 16 MiB pseudo-random block over and over (never
 * the whole file in memory) and returns the SHA-256. Repeats do not help either side: curl,
 * sha256sum and svc all read every byte.
 */
export async function makeFile(path, bytes, seed = 1) {
  const block = Buffer.alloc(16 * MiB);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < block.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    block.writeUInt32LE(x >>> 0, i);
  }
  const hash = createHash('sha256');
  const out = createWriteStream(path, { highWaterMark: 16 * MiB });
  for (let left = bytes; left > 0;) {
    const chunk = left >= block.length ? block : block.subarray(0, left);
    hash.update(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
    left -= chunk.length;
  }
  out.end();
  await once(out, 'close');
  return hash.digest('hex');
}

/** bench/lib/servers.mjs in its own process, serving `dir` under /files/ and the paged list API. */
export async function startServers(dir, { pages = 100, pageSize = 20 } = {}) {
  const { info } = await startHelper(NODE, [...TSX, join(ROOT, 'bench/lib/servers.mjs'), dir, String(pages), String(pageSize)], { label: 'bench servers' });
  return {
    base: info.base,
    /** TCP connections the servers accepted so far. */
    async connections() {
      const res = await fetch(`${info.base}/_bench/connections`);
      return (await res.json()).connections;
    },
  };
}
