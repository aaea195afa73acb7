/**
 * End-to-end harness: the built CLI (bin/svc -> dist/main.js) as a real subprocess, talking real HTTP
 * to an in-process sandbox. Nothing of the developer's environment leaks in: every run gets its own
 * HOME and XDG_CONFIG_HOME, no PG* or SVC_* variables, and a D-Bus address that fails at once so the
 * keychain (keytar, when installed) is "unavailable" rather than the developer's real one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { expect } from 'vitest';
import { startSandbox, type RequestLogEntry, type RunningSandbox } from '../../src/sandbox/index.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SVC = join(ROOT, 'bin', 'svc');
const DIST_MAIN = join(ROOT, 'dist', 'main.js');

// ---------------------------------------------------------------- build

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** What bin/svc runs: dist/main.js, and whatever else the launcher imports from dist/ (a bundle). */
function builtEntries(): string[] {
  const launcher = readFileSync(SVC, 'utf8');
  const imported = [...launcher.matchAll(/['"]\.\.\/dist\/([^'"]+)['"]/g)].map((m) => join(ROOT, 'dist', m[1]!));
  return [...new Set([DIST_MAIN, ...imported])];
}

/** A built entry missing, or older than anything under src/ (or tsconfig.json, bin/svc). */
export function distIsStale(): boolean {
  const entries = builtEntries();
  if (!entries.every((f) => existsSync(f))) return true;
  const built = Math.min(...entries.map((f) => statSync(f).mtimeMs));
  const sources = Math.max(newestMtime(join(ROOT, 'src')), statSync(join(ROOT, 'tsconfig.json')).mtimeMs, statSync(SVC).mtimeMs);
  return sources > built;
}

/**
 * `npm run build` when dist is stale. Test files run in parallel workers: a lock directory makes
 * one of them build while the others wait, then look again.
 */
export async function ensureBuilt(): Promise<void> {
  if (!distIsStale()) return;
  const lock = join(tmpdir(), `svc-e2e-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock older than two minutes belongs to a build that died.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`waited 2 minutes for another test file's build (lock ${lock})`);
      await sleep(100);
    }
  }
  try {
    if (!distIsStale()) return;
    const build = await execa('npm', ['run', 'build'], { cwd: ROOT, all: true, reject: false, stdin: 'ignore' });
    if (build.exitCode !== 0) throw new Error(`npm run build failed (exit ${build.exitCode}):\n${build.all}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- secrets

/** Every secret of this test file: no CLI output may contain one (tokens, DSN passwords). */
const secrets = new Set<string>();

export function registerSecret(secret: string): void {
  secrets.add(secret);
}

export function expectNoSecrets(text: string, extra: (string | undefined)[] = []): void {
  for (const s of [...secrets, ...extra]) {
    if (s) expect(text.includes(s), `output contains a secret (${s.slice(0, 14)}…):\n${text}`).toBe(false);
  }
}

// ---------------------------------------------------------------- sandbox

export interface E2eSandbox extends RunningSandbox {
  requests: RequestLogEntry[];
  /** The environment of a CLI run with the named token (or none) against this sandbox. */
  env(token?: string | null, extra?: Record<string, string | undefined>): Record<string, string>;
}

export async function startE2eSandbox(): Promise<E2eSandbox> {
  const requests: RequestLogEntry[] = [];
  const sb = await startSandbox({ port: 0, onRequest: (e) => requests.push(e) });
  for (const t of sb.tokens) registerSecret(t.token);
  const env: E2eSandbox['env'] = (token = 'full', extra = {}) =>
    cleanEnv({ SVC_BASE_URL: sb.baseUrl, ...(token ? { SVC_API_KEY: sb.token(token) } : {}), ...extra });
  return Object.assign(sb, { requests, env });
}

// ---------------------------------------------------------------- running the CLI

let homeRoot: string | undefined;

/** A fresh empty directory, removed by cleanupTempDirs(). */
export function tempDir(prefix = 'run'): string {
  homeRoot ??= mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  return mkdtempSync(join(homeRoot, `${prefix}-`));
}

/** For afterAll: ends children a failed test left running (a served `svc sandbox`), removes the temp dirs. */
export function cleanupE2e(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  if (homeRoot) rmSync(homeRoot, { recursive: true, force: true });
  homeRoot = undefined;
}

/**
 * PATH and nothing else of ours; a private HOME and XDG_CONFIG_HOME unless given; a D-Bus address
 * that fails at once, so keytar reports "no keychain" instead of touching a real one or hanging.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const home = extra.HOME ?? tempDir('home');
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/svc-e2e-no-bus',
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

export interface SvcResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface SvcOptions {
  env: Record<string, string>;
  input?: string;
  /** The run is expected to print secrets (only `svc sandbox`, whose demo tokens are public). */
  printsSecrets?: boolean;
  timeoutMs?: number;
}

const running = new Set<ResultPromise>();

/** Starts `node bin/svc ...args`; stdout and stderr are collected, stdin is `input` or empty. */
export function spawnSvc(args: string[], opts: SvcOptions): ResultPromise<{ reject: false }> {
  const child = execa(process.execPath, [SVC, ...args], {
    cwd: ROOT,
    env: opts.env,
    extendEnv: false,
    reject: false,
    input: opts.input ?? '',
    stripFinalNewline: false,
    timeout: opts.timeoutMs ?? 30_000,
  }) as ResultPromise<{ reject: false }>;
  running.add(child);
  void child.finally(() => running.delete(child));
  return child;
}

/** Runs `svc ...args` to the end and checks that nothing it printed holds a secret. */
export async function svc(args: string[], opts: SvcOptions): Promise<SvcResult> {
  const r = await spawnSvc(args, opts);
  const result = { code: r.exitCode ?? (r.signal ? -1 : 1), stdout: String(r.stdout), stderr: String(r.stderr) };
  if (r.timedOut) throw new Error(`svc ${args.join(' ')} timed out:\n${result.stderr}`);
  if (!opts.printsSecrets) expectNoSecrets(`${result.stdout}\n${result.stderr}`, [opts.env.SVC_API_KEY, opts.env.SVC_TARGET_DSN, opts.input?.trim()]);
  return result;
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

/** The parsed --json error envelope of stderr (cli-contract 4). */
export function errorEnvelope(stderr: string): { code: string; message: string; requestId: string | null; requiredScope?: string; nextAction?: string; status: number | null } {
  const doc = JSON.parse(stderr) as { error: ReturnType<typeof errorEnvelope> };
  expect(Object.keys(doc)).toEqual(['error']);
  return doc.error;
}

/** A loopback port nothing listens on (bound, then released). */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export const REQUEST_ID_LINE = /request id: req_[0-9a-f]{24}/;
