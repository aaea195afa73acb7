/**
 * The built CLI (`node bin/svc`, which runs the bundle in dist/) as a real child process, for every
 * suite that needs one: signals, exit codes, the keychain, end-to-end runs. Nothing of the
 * developer's environment leaks in: cleanEnv() gives each run its own HOME and XDG_CONFIG_HOME, no
 * PG* or SVC_* variables, and a D-Bus address that fails at once, so no real keychain is touched.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'svc');
const BUNDLE = join(ROOT, 'dist', 'chunks', 'start.cjs');

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** The bundle is missing, or older than anything it is built from. */
export function bundleIsStale(): boolean {
  if (!existsSync(BUNDLE)) return true;
  const inputs = [join(ROOT, 'src'), join(ROOT, 'tools', 'bundle.mjs'), join(ROOT, 'package.json'), BIN];
  return Math.max(...inputs.map(newestMtime)) > statSync(BUNDLE).mtimeMs;
}

/**
 * `npm run build` when the bundle is stale, so a test of the built CLI never runs old code. Test
 * files run in parallel workers: a lock directory makes one of them build while the others wait.
 */
export async function ensureBuilt(): Promise<void> {
  if (!bundleIsStale()) return;
  const lock = join(tmpdir(), `svc-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock older than three minutes belongs to a build that died.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`waited 3 minutes for another test file's build (lock ${lock})`);
      await sleep(100);
    }
  }
  try {
    if (!bundleIsStale()) return;
    const build = await execa('npm', ['run', 'build'], { cwd: ROOT, all: true, reject: false, stdin: 'ignore' });
    if (build.exitCode !== 0 || bundleIsStale()) throw new Error(`npm run build failed (exit ${build.exitCode}):\n${build.all}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

let tempRoot: string | undefined;
// Workers are shared: the last file of one may not call cleanupBuiltCli(), and its directories would stay.
process.on('exit', cleanupBuiltCli);

/** Set by the run's globalSetup (pg-run-setup.ts): the cache directory its svc processes share. */
export const CACHE_HOME_ENV = 'SVC_TEST_CACHE_HOME';

/**
 * The run's shared $XDG_CACHE_HOME (scratch cluster templates, V8's code cache), or undefined outside
 * a vitest run. It holds no secret; a test of a cache gives its own XDG_CACHE_HOME.
 */
export const sharedCacheHome = (): string | undefined => process.env[CACHE_HOME_ENV];

/** A fresh empty directory, removed by cleanupBuiltCli(). */
export function tempDir(prefix = 'run'): string {
  tempRoot ??= mkdtempSync(join(tmpdir(), 'svc-cli-'));
  return mkdtempSync(join(tempRoot, `${prefix}-`));
}

/**
 * PATH and nothing else of ours; a private HOME, XDG_CONFIG_HOME and TMPDIR unless given (so a test
 * can search everything a run wrote); a D-Bus address that fails at once, so a keychain backend
 * reports "no keychain" instead of touching a real one.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const home = extra.HOME ?? tempDir('home');
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: sharedCacheHome(),
    TMPDIR: tempDir('tmp'),
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/svc-test-no-bus',
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

export interface SpawnOptions {
  /** Exactly the child's environment (see cleanEnv); undefined values are left out. */
  env: Record<string, string | undefined>;
  /** Standard input, then EOF; empty by default. */
  input?: string;
  timeoutMs?: number;
  /** Another node binary (the Node 22/24 runs of .ci/run). */
  node?: string;
  /** Hands stdout over chunk by chunk instead of collecting it (a run that writes more than a test should hold). */
  onStdout?: (chunk: Buffer) => void;
  /** Sees stderr as it comes (stderr is still collected): a test that waits for a line before it acts. */
  onStderr?: (chunk: Buffer) => void;
}

const running = new Set<ResultPromise>();

/** Starts `node bin/svc ...args`; stdout and stderr are collected. */
export function spawnSvc(args: string[], opts: SpawnOptions): ResultPromise<{ reject: false }> {
  const child = execa(opts.node ?? process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: opts.env,
    extendEnv: false,
    reject: false,
    input: opts.input ?? '',
    stripFinalNewline: false,
    timeout: opts.timeoutMs ?? 60_000,
    buffer: { stdout: opts.onStdout === undefined },
  }) as ResultPromise<{ reject: false }>;
  if (opts.onStdout) child.stdout!.on('data', opts.onStdout);
  if (opts.onStderr) child.stderr!.on('data', opts.onStderr);
  running.add(child);
  void child.finally(() => running.delete(child));
  return child;
}

/** For afterAll: ends children a failed test left running (a served `svc sandbox`), removes the temp dirs. */
export function cleanupBuiltCli(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
  tempRoot = undefined;
}

/** Resolves with everything read so far once `pattern` matches what the child wrote to `stream`. */
export function waitForOutput(child: ResultPromise, stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const source = child[stream]!;
    const timer = setTimeout(() => {
      source.off('data', onData);
      reject(new Error(`no ${pattern} on ${stream} within ${timeoutMs} ms; got:\n${seen}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (pattern.test(seen)) {
        clearTimeout(timer);
        source.off('data', onData);
        resolve(seen);
      }
    };
    source.on('data', onData);
    void child.then(() => {
      clearTimeout(timer);
      if (!pattern.test(seen)) reject(new Error(`exited before ${pattern} appeared on ${stream}; got:\n${seen}`));
    });
  });
}
