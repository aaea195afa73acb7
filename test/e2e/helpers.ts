/**
 * End-to-end harness: the built CLI (test/support/built-cli.ts) as a real subprocess, talking real
 * HTTP to an in-process sandbox, with every output checked for secrets.
 */
import { basename } from 'node:path';
import { expect } from 'vitest';
import { startSandbox, type RequestLogEntry, type RunningSandbox, type StartSandboxOptions } from '../../src/sandbox/index.js';
import { cleanEnv, cleanupBuiltCli, ensureBuilt, spawnSvc as spawnBuilt, type SpawnOptions } from '../support/built-cli.js';
import { type PgCluster } from '../support/pg-cluster.js';
import { runCli } from '../support/run-cli.js';
import { workerCluster } from '../support/worker-cluster.js';
import { expectNoSecretsLeft, type Secrets } from '../support/secret-scan.js';

export { BIN as SVC, cleanEnv, ensureBuilt, ROOT, tempDir, waitForOutput } from '../support/built-cli.js';
export { closedPort } from '../support/loopback-server.js';

/** For afterAll: ends children a failed test left running, removes the temp dirs. */
export const cleanupE2e = cleanupBuiltCli;

/**
 * Every secret of this test file: no CLI output or file a run leaves may contain one. Lock tokens
 * the sandbox hands to svc itself are unknown to the test: they are found by their shape.
 */
const secrets = {
  tokens: new Set<string>(),
  lockTokens: new Set<string>(),
  presignedUrls: new Set<string>(),
  dsnPasswords: new Set<string>(),
  patterns: [/lk_[0-9a-f]{16,}/] as RegExp[],
} satisfies Secrets;

export function registerSecret(secret: string, kind: 'tokens' | 'lockTokens' | 'presignedUrls' | 'dsnPasswords' = 'tokens'): void {
  secrets[kind].add(secret);
}

/** A secret the test cannot know in advance, by its shape (a password svc made and keeps to itself). */
export function registerSecretPattern(pattern: RegExp): void {
  secrets.patterns.push(pattern);
}

export function expectNoSecrets(text: string, extra: (string | undefined)[] = []): void {
  for (const s of [...secrets.tokens, ...secrets.lockTokens, ...secrets.presignedUrls, ...secrets.dsnPasswords, ...extra]) {
    if (s) expect(text.includes(s), `output contains a secret (${s.slice(0, 14)}…):\n${text}`).toBe(false);
  }
}

/** The paths a run named: its work dir, and every file svc writes for the user (receipt, report dir, metrics file). */
const WRITTEN = new Set(['--work-dir', '--receipt', '--report', '--metrics-file']);
function pathsIn(args: string[]): string[] {
  return args.flatMap((a, i) => (WRITTEN.has(a) ? [args[i + 1] ?? ''] : [])).filter(Boolean);
}

/**
 * After every run: its outputs, HOME (config and all), TMPDIR, and its work dir and receipt hold no
 * secret. The credentials file is where a file login keeps the token by design.
 */
async function expectRunLeftNoSecrets(args: string[], opts: SvcOptions, result: SvcResult): Promise<void> {
  const { env } = opts;
  await expectNoSecretsLeft(
    {
      texts: [result.stdout, result.stderr],
      paths: [env.HOME, env.TMPDIR, ...pathsIn(args)].filter((p): p is string => !!p),
      allowed: (file) => basename(file) === 'credentials.json',
    },
    { ...secrets, tokens: [...secrets.tokens, env.SVC_API_KEY], dsnPasswords: [...secrets.dsnPasswords, env.SVC_TARGET_DSN, opts.input?.trim()] },
  );
}

// ---------------------------------------------------------------- sandbox

export interface E2eSandbox extends RunningSandbox {
  requests: RequestLogEntry[];
  /** The environment of a CLI run with the named token (or none) against this sandbox. */
  env(token?: string | null, extra?: Record<string, string | undefined>): Record<string, string>;
}

/** `opts`: another data set (`dataDir`, e.g. test/support/big-org.ts), recent timestamps, ... */
export async function startE2eSandbox(opts: Omit<StartSandboxOptions, 'port' | 'onRequest'> = {}): Promise<E2eSandbox> {
  const requests: RequestLogEntry[] = [];
  const sb = await startSandbox({ ...opts, port: 0, onRequest: (e) => requests.push(e) });
  for (const t of sb.tokens) registerSecret(t.token);
  const env: E2eSandbox['env'] = (token = 'full', extra = {}) =>
    cleanEnv({ SVC_BASE_URL: sb.baseUrl, ...(token ? { SVC_API_KEY: sb.token(token) } : {}), ...extra });
  return Object.assign(sb, { requests, env });
}

/**
 * The built CLI, a sandbox and a throwaway PostgreSQL cluster whose password is a registered
 * secret, started side by side; whatever started is stopped again when another part fails.
 */
export async function startE2eWithCluster(password: string): Promise<{ sb: E2eSandbox; cluster: PgCluster }> {
  registerSecret(password, 'dsnPasswords');
  const [built, sandbox, pg] = await Promise.allSettled([ensureBuilt(), startE2eSandbox(), workerCluster({ password })]);
  const failed = [built, sandbox, pg].find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.all([sandbox.status === 'fulfilled' && sandbox.value.stop(), pg.status === 'fulfilled' && pg.value.stop()]);
    throw failed.reason;
  }
  return { sb: (sandbox as PromiseFulfilledResult<E2eSandbox>).value, cluster: (pg as PromiseFulfilledResult<PgCluster>).value };
}

export interface SvcResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface SvcOptions extends SpawnOptions {
  /** The run is expected to print secrets (only `svc sandbox`, whose demo tokens are public). */
  printsSecrets?: boolean;
}

/** Starts `node bin/svc ...args` (see test/support/built-cli.ts). */
export function spawnSvc(args: string[], opts: SvcOptions): ReturnType<typeof spawnBuilt> {
  return spawnBuilt(args, opts);
}

/**
 * `svc ...args` in this process (test/support/run-cli.ts: run(argv, ctx) with the real clock), for a
 * test where no process boundary is under test; the same env, the same secret checks as svc().
 * With `sleeps`, svc's waits (a --wait's polls) are recorded there instead of waited out. svc
 * finds its temp dir through os.tmpdir(), which reads this process's TMPDIR: with `ownTmpdir`
 * that is the run's env.TMPDIR while it runs, so a restore's password file lands where the scan
 * looks (process-wide: not for runs side by side, as in a describe.concurrent).
 */
export async function svcInProcess(args: string[], opts: SvcOptions & { sleeps?: number[]; ownTmpdir?: boolean }): Promise<SvcResult> {
  const run = () => runCli(args, { env: opts.env, stdin: opts.input, realTime: true, sleeps: opts.sleeps });
  const result = opts.ownTmpdir && opts.env.TMPDIR ? await withTmpdir(opts.env.TMPDIR, run) : await run();
  if (!opts.printsSecrets) await expectRunLeftNoSecrets(args, opts, result);
  return result;
}

/** `fn` with this process's TMPDIR set to `dir`, then put back. */
async function withTmpdir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

/** Runs `svc ...args` to the end and checks that nothing it printed holds a secret. */
export async function svc(args: string[], opts: SvcOptions): Promise<SvcResult> {
  const r = await spawnSvc(args, opts);
  const result = { code: r.exitCode ?? (r.signal ? -1 : 1), stdout: String(r.stdout), stderr: String(r.stderr) };
  if (r.timedOut) throw new Error(`svc ${args.join(' ')} timed out:\n${result.stderr}`);
  if (!opts.printsSecrets) await expectRunLeftNoSecrets(args, opts, result);
  return result;
}

/** The parsed --json error envelope of stderr (cli-contract 4). */
export function errorEnvelope(stderr: string): {
  code: string;
  message: string;
  requestId: string | null;
  requiredScope?: string;
  nextAction?: string;
  status: number | null;
} {
  const doc = JSON.parse(stderr) as { error: ReturnType<typeof errorEnvelope> };
  expect(Object.keys(doc)).toEqual(['error']);
  return doc.error;
}

export const REQUEST_ID_LINE = /request id: req_[0-9a-f]{24}/;
