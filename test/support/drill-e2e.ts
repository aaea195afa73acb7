/**
 * End-to-end harness of `svc restore drill`: the built CLI against an in-process sandbox
 * (test/e2e/helpers.ts), each run in its own work dir, and after every run the checks the contract
 * makes of a drill's clean-up (cli-contract 9, step 5) and of its secrets:
 * - no process of the drill is left: none whose command line or working directory lies in the
 *   run's work dir (the scratch cluster lives there; a postgres process's cwd is its data dir);
 * - no file is left in the work dir;
 * - no secret in stdout, stderr, the report, the work dir, HOME or TMPDIR (helpers.ts scans those),
 *   nor anything that looks like a password: the scratch cluster's is made by svc and never shown to
 *   the test, so any `password=...`, `"password":` or URI with a password in its userinfo counts.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { cleanupE2e, ensureBuilt, registerSecretPattern, startE2eSandbox, svc, type E2eSandbox, type SvcResult } from '../e2e/helpers.js';
import type { StartSandboxOptions } from '../../src/sandbox/index.js';
import { psqlStatements, runStatements } from './pg-query.js';

/** Shapes of a password in text: a conninfo or .pgpass-ish `password=`, a JSON field, a URI's userinfo. */
export const PASSWORD_SHAPES = [/password\s*=\s*[^\s'"]/i, /"password"\s*:/i, /\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i];

/** Live (non-zombie) processes whose command line mentions `dir`, or whose working directory is in it. */
export function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // Not ours to read, or gone.
      }
      if (cmd.includes(dir) || cwd === dir || cwd.startsWith(`${dir}/`)) found.push(`${pid} (cwd ${cwd}) ${cmd}`);
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

export interface DrillRun extends SvcResult {
  workDir: string;
  /** stdout parsed, for a run with --json that printed a document. */
  doc: DrillDocument['drill'] | undefined;
}

export interface DrillOptions {
  /** The sandbox token (default `drill`: databases:read, restores:read, restores:write, a large budget). */
  token?: string;
  env?: Record<string, string | undefined>;
  /** The run leaves things in its work dir by design (--keep): skip the leftover checks. */
  keeps?: boolean;
  timeoutMs?: number;
  /** Give --work-dir (default: a fresh one). */
  workDir?: string;
  /** Sees stderr as it comes: a test that waits for a line before it lets the run go on. */
  onStderr?: (chunk: Buffer) => void;
}

export class DrillE2e {
  sb!: E2eSandbox;
  /** Where work dirs live: under the OS temp dir, searchable by all, so a scratch cluster run as `postgres` (when root) reaches it. */
  root = '';

  async start(opts: Omit<StartSandboxOptions, 'port' | 'onRequest'> = {}): Promise<this> {
    registerPasswordShapes();
    this.root = mkdtempSync(join(tmpdir(), 'svc-drilltest-'));
    chmodSync(this.root, 0o755);
    const [built, sandbox] = await Promise.allSettled([ensureBuilt(), startE2eSandbox(opts)]);
    if (sandbox.status === 'fulfilled') this.sb = sandbox.value;
    for (const r of [built, sandbox]) if (r.status === 'rejected') throw r.reason;
    return this;
  }

  async stop(): Promise<void> {
    await this.sb?.stop();
    cleanupE2e();
    if (this.root) rmSync(this.root, { recursive: true, force: true });
  }

  /** A fresh, empty work dir (0755). */
  workDir(): string {
    const dir = mkdtempSync(join(this.root, 'work-'));
    chmodSync(dir, 0o755);
    return dir;
  }

  /** How many restore jobs the sandbox was asked to create so far. */
  restoresCreated(): number {
    return this.sb.requests.filter((e) => e.method === 'POST' && e.path === '/api/v1/restores').length;
  }

  /**
   * `svc restore drill ...args --work-dir <fresh>`; then no process of it and no file in its work dir
   * (unless `keeps`), and no secret anywhere it wrote (helpers.ts's scan plus the password shapes).
   */
  async drill(args: string[], opts: DrillOptions = {}): Promise<DrillRun> {
    const workDir = opts.workDir ?? this.workDir();
    const r = await svc(['restore', 'drill', ...args, '--work-dir', workDir], {
      env: this.sb.env(opts.token ?? 'drill', opts.env ?? {}),
      timeoutMs: opts.timeoutMs ?? 120_000,
      onStderr: opts.onStderr,
    });
    if (!opts.keeps) expectNothingLeft(workDir, r);
    let doc: DrillDocument['drill'] | undefined;
    if (args.includes('--json') && r.stdout.trim()) doc = (JSON.parse(r.stdout) as DrillDocument).drill;
    return { ...r, workDir, doc };
  }
}

/**
 * Whether the scratch cluster a drill runs in `workDir` answers `countSql` with more than 0: asked
 * through its private socket (read from postmaster.pid) as its superuser. false while there is no cluster.
 */
export async function scratchCounts(workDir: string, countSql: string): Promise<boolean> {
  const dir = readdirSync(workDir).find((d) => d.startsWith('svc-drill-'));
  if (!dir) return false;
  let lines: string[];
  try {
    lines = readFileSync(join(workDir, dir, 'data', 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return false;
  }
  const statements = psqlStatements(countSql);
  if (!statements) throw new Error(`scratchCounts takes plain SQL: ${countSql}`);
  const target = { host: lines[4]!, port: Number(lines[3]), user: 'postgres', database: 'postgres' };
  return runStatements(target, statements).then(
    (count) => count !== '0',
    () => false,
  );
}

/** No process of the drill and no file in its work dir. */
export function expectNothingLeft(workDir: string, r?: SvcResult): void {
  expect(processesIn(workDir), `processes left behind:\n${r?.stderr ?? ''}`).toEqual([]);
  expect(readdirSync(workDir), `files left in ${workDir}:\n${r?.stderr ?? ''}`).toEqual([]);
}

let shapesRegistered = false;
function registerPasswordShapes(): void {
  if (shapesRegistered) return;
  shapesRegistered = true;
  for (const shape of PASSWORD_SHAPES) registerSecretPattern(shape);
}

/** The exit-13 line every failed drill ends with. */
export const DRILL_FAILED = /^error: The drill failed for (\d+) of (\d+) database\(s\): (.*)\.$/m;

/**
 * After a --keep run: runs the stop line it printed for `databaseId` (`[runuser -u postgres --] pg_ctl
 * -D <data> stop -m fast   # then: rm -rf <dir>`), then the rm; whatever the outcome, no process or
 * file of the run outlives it.
 */
export async function stopKept(stderr: string, workDir: string, databaseId: string): Promise<void> {
  const line = new RegExp(`^${databaseId}: kept: (.*pg_ctl -D .+)$`, 'm').exec(stderr)?.[1];
  if (line) {
    const [command, rm] = line.split('   # then: ');
    await execa('sh', ['-c', command!], { reject: false });
    expect(rm).toMatch(new RegExp(`^rm -rf ${workDir}/svc-drill-\\w+$`));
    await execa('sh', ['-c', rm!]);
  }
  for (const p of processesIn(workDir)) process.kill(Number(p.split(' ')[0]), 'SIGKILL');
  for (const f of readdirSync(workDir)) rmSync(join(workDir, f), { recursive: true, force: true });
}
