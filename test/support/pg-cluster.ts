/**
 * A throwaway PostgreSQL cluster for tests, the local sandbox and demos: initdb into a fresh temp
 * dir (inside a vitest run, a copy of the run's initdb'd data dir), SCRAM password auth over
 * 127.0.0.1 only, removed again by stop(). Development tooling, not
 * part of the CLI's runtime.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, execaSync } from 'execa';
import { psqlStatements, runStatements } from './pg-query.js';
import { freePort } from './ports.js';

export interface PgCluster {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly user: 'postgres';
  readonly password: string;
  /**
   * Directory of the machine's client tools for this cluster (psql, pg_dump, pg_restore): Debian's
   * /usr/lib/postgresql/<v>/bin, whatever server runs.
   */
  readonly binDir: string;
  /** Directory of the server binaries that run it (initdb, pg_ctl, postgres). */
  readonly serverBinDir: string;
  /** The running server's major version (`server_version_num` / 10000). */
  readonly serverMajor: number;
  readonly dataDir: string;
  /** `postgresql://postgres[:password]@127.0.0.1:<port>/<database>`, components URI-encoded. */
  dsn(database: string, withPassword?: boolean): string;
  /**
   * Runs SQL (any number of statements) as `psql -X -q -w -A -t -v ON_ERROR_STOP=1` over TCP would
   * and returns its stdout trimmed: in process (pg-query.ts), or for a script only psql can run (a
   * meta-command, COPY) with psql itself, the password in PGPASSWORD (never argv).
   */
  psql(sql: string, database?: string): Promise<string>;
  /** Fast shutdown, then removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartClusterOptions {
  /** Defaults to a random one. */
  password?: string;
  /** Progress lines (steps, port), never secrets. */
  log?: (line: string) => void;
  /** Extra server settings (`-c name=value`), e.g. `{ log_statement: 'all' }`. */
  settings?: Record<string, string>;
  /**
   * Server binaries (initdb, pg_ctl, postgres) of another major, e.g. from tools/pg-majors.mjs;
   * defaults to findPgBinDir(). The client tools stay the machine's.
   */
  serverBinDir?: string;
  /**
   * Leave the server running when this process exits (no exit hook, stop() does not stop it); it is
   * stopped with stopClusterAt(). For the per-worker clusters of test/support/worker-cluster.ts.
   */
  detached?: boolean;
}

/**
 * The run directory of a vitest run (set by test/support/pg-run-setup.ts): one initdb'd data dir
 * per server major that startCluster() copies instead of running initdb, and the per-worker clusters.
 */
export const PG_RUN_DIR_ENV = 'SVC_TEST_PG_RUN_DIR';

/** A failure of the throwaway cluster: names the step and carries the tail of the server log. */
export class PgClusterError extends Error {
  readonly logTail: string | undefined;

  constructor(message: string, logTail?: string) {
    super(logTail ? `${message}\n--- server log (last lines) ---\n${logTail}` : message);
    this.name = 'PgClusterError';
    this.logTail = logTail;
  }
}

const PG_ROOT = '/usr/lib/postgresql';
const SERVER_BINARIES = ['initdb', 'pg_ctl', 'postgres'];
const START_ATTEMPTS = 5;
const STOP_GRACE_MS = 20_000;

/** The highest /usr/lib/postgresql/<version>/bin holding both initdb and postgres. */
export function findPgBinDir(): string | undefined {
  let entries: string[];
  try {
    entries = readdirSync(PG_ROOT);
  } catch {
    return undefined;
  }
  const versions = entries.filter((v) => /^\d+(\.\d+)?$/.test(v)).sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  for (const v of versions) {
    const bin = join(PG_ROOT, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return bin;
  }
  return undefined;
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function findRunuser(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/bin', '/bin'];
  for (const dir of dirs) {
    if (dir && existsSync(join(dir, 'runuser'))) return join(dir, 'runuser');
  }
  return undefined;
}

let postgresIds: { uid: number; gid: number } | null | undefined;

/** uid/gid of the `postgres` OS user (the server refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (postgresIds === undefined) {
    const uid = execaSync('id', ['-u', 'postgres'], { reject: false });
    const gid = execaSync('id', ['-g', 'postgres'], { reject: false });
    postgresIds = uid.exitCode === 0 && gid.exitCode === 0 ? { uid: Number(String(uid.stdout).trim()), gid: Number(String(gid.stdout).trim()) } : null;
  }
  return postgresIds ?? undefined;
}

/** Whether startCluster() can work here: server binaries, and as root also runuser and a postgres user. */
export function pgServerAvailable(): boolean {
  if (!findPgBinDir()) return false;
  if (!isRoot()) return true;
  return findRunuser() !== undefined && postgresUser() !== undefined;
}

/**
 * Why PostgreSQL-backed tests should be skipped here, or undefined to run them. Under CI they never
 * skip: a missing server must fail the build rather than silently test nothing.
 */
export function pgSkipReason(env: Record<string, string | undefined> = process.env): string | undefined {
  const ci = env.CI;
  if (ci && ci !== 'false' && ci !== '0') return undefined;
  if (pgServerAvailable()) return undefined;
  return (
    `no PostgreSQL server found (${PG_ROOT}/*/bin with initdb and postgres` +
    `${isRoot() ? ', plus runuser and a postgres OS user when root' : ''}); set CI=true to make this a failure`
  );
}

/** process.env without PG* settings (PGDATA, service files, sslmode, a stray PGPASSWORD) that would steer our tools elsewhere. */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('PG')) env[k] = v;
  }
  env.LC_MESSAGES = 'C';
  return env;
}

/** Environment for client tools (psql, pg_dump, pg_restore) aimed at the cluster; use with extendEnv: false. */
export function clientEnv(cluster: Pick<PgCluster, 'host' | 'port' | 'user' | 'password'>): Record<string, string> {
  return {
    ...inheritedEnv(),
    PGHOST: cluster.host,
    PGPORT: String(cluster.port),
    PGUSER: cluster.user,
    PGPASSWORD: cluster.password,
    PGCLIENTENCODING: 'UTF8',
    PGCONNECT_TIMEOUT: '10',
  };
}

export function redact(text: string, password: string): string {
  if (!password) return text;
  let out = text.split(password).join('***');
  const encoded = encodeURIComponent(password);
  if (encoded !== password) out = out.split(encoded).join('***');
  return out;
}

function tail(text: string, lines = 30): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

async function readLogTail(logFile: string): Promise<string | undefined> {
  try {
    const text = await readFile(logFile, 'utf8');
    return text.trim() ? tail(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Single-quotes for /bin/sh: pg_ctl hands its -o string to a shell. */
function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function readPid(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The postmaster's pid of a data dir, or undefined when it has none or it no longer runs. */
export function runningPostmaster(dataDir: string): number | undefined {
  const pid = readPid(dataDir);
  return pid && alive(pid) ? pid : undefined;
}

/**
 * Whether pid is still running. A zombie counts as gone: the postmaster is reparented when pg_ctl
 * exits, and in a container PID 1 may never reap it.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return existsSync(`/proc/${pid}`) || process.platform !== 'linux';
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

interface Live {
  pid: number | undefined;
  baseDir: string;
}

const live = new Set<Live>();
let exitHookInstalled = false;

/** A caller that forgot stop(): immediate-shutdown the postmaster (it takes its children along) and clean up. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const c of live) {
      if (c.pid) signal(c.pid, 'SIGQUIT');
      try {
        rmSync(c.baseDir, { recursive: true, force: true });
      } catch {
        // Best effort while the server is going down.
      }
    }
    live.clear();
  });
}

type RunAs = { runuser: string; uid: number; gid: number } | undefined;

/** As root, who runs the server (postgres, through runuser); undefined when we are not root. */
function serverUser(): RunAs {
  if (!isRoot()) return undefined;
  const runuser = findRunuser();
  const ids = postgresUser();
  if (!runuser || !ids) throw new PgClusterError('running as root needs runuser and a `postgres` OS user to run the server as');
  return { runuser, ...ids };
}

/** A server-side command, as postgres when we are root; cwd a dir postgres can read, because initdb/pg_ctl need one. */
function asServerUser(runAs: RunAs, file: string, args: string[], cwd: string, timeout: number) {
  const [cmd, argv] = runAs ? [runAs.runuser, ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return execa(cmd, argv, { cwd, reject: false, timeout, stdin: 'ignore', all: true, env: inheritedEnv(), extendEnv: false });
}

/** initdb into `dir`/data with `password` for postgres; the password file lives in `dir` only while initdb runs. */
async function initdb(runAs: RunAs, serverBinDir: string, dir: string, password: string) {
  const pwFile = join(dir, 'pwfile');
  await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  if (runAs) await chown(pwFile, runAs.uid, runAs.gid);
  try {
    const args = ['-D', join(dir, 'data'), '--auth=scram-sha-256', `--pwfile=${pwFile}`, '-U', 'postgres', '--encoding=UTF8', '--locale=C', '--no-sync'];
    return await asServerUser(runAs, join(serverBinDir, 'initdb'), args, dir, 120_000);
  } finally {
    await unlink(pwFile).catch(() => {});
  }
}

interface Template {
  dataDir: string;
  /** postgres's password in the template, replaced at each copy's first start. */
  password: string;
}

/**
 * The test run's initdb'd data dir for serverBinDir (PG_RUN_DIR_ENV): made once per run by the first
 * process that needs it, while the others wait for it. A copy (cp -a) costs a fraction of an initdb.
 * Undefined outside a test run, or when it cannot be made: initdb then runs as before.
 */
async function runTemplate(runAs: RunAs, serverBinDir: string): Promise<Template | undefined> {
  const runDir = process.env[PG_RUN_DIR_ENV];
  if (!runDir || !existsSync(runDir)) return undefined;
  const key = createHash('sha256').update(serverBinDir).digest('hex').slice(0, 12);
  const dir = join(runDir, `initdb-${key}`);
  // Holds the template's password: readable by us only, unlike dir, which postgres owns.
  const ready = join(runDir, `initdb-${key}.password`);
  const failed = join(runDir, `initdb-${key}.failed`);
  const found = (): Template | undefined => {
    const password = existsSync(ready) ? readFileSync(ready, 'utf8') : '';
    return password ? { dataDir: join(dir, 'data'), password } : undefined;
  };
  const made = found();
  if (made) return made;
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch {
    for (const deadline = Date.now() + 150_000; Date.now() < deadline && !existsSync(failed);) {
      await sleep(100);
      const t = found();
      if (t) return t;
    }
    return undefined;
  }
  const password = randomBytes(18).toString('base64url');
  if (runAs) await chown(dir, runAs.uid, runAs.gid);
  const init = await initdb(runAs, serverBinDir, dir, password);
  if (init.exitCode !== 0) {
    await writeFile(failed, '');
    return undefined;
  }
  await writeFile(`${ready}.tmp`, password, { mode: 0o600 });
  await rename(`${ready}.tmp`, ready);
  return { dataDir: join(dir, 'data'), password };
}

/** A PgCluster whose password can change and whose major is filled in once asked. */
export type ReachedCluster = Omit<PgCluster, 'serverMajor'> & { serverMajor: number; changePassword(password: string): Promise<void> };

/** Where a running cluster is: enough to reach it again from another process (worker-cluster.ts). */
export interface ClusterAddress {
  port: number;
  password: string;
  binDir: string;
  serverBinDir: string;
  dataDir: string;
  serverMajor: number;
}

export function sqlLiteral(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/**
 * A PgCluster over a running server at `address`; stop() is `stop`. changePassword() sets postgres's
 * password (never logged: log_statement is off for that statement) and uses it from then on.
 */
export function clusterAt(address: ClusterAddress, stop: () => Promise<void>): ReachedCluster {
  const a = { ...address };
  const cluster = {
    host: '127.0.0.1' as const,
    port: a.port,
    user: 'postgres' as const,
    get password() {
      return a.password;
    },
    binDir: a.binDir,
    serverBinDir: a.serverBinDir,
    get serverMajor() {
      return a.serverMajor;
    },
    set serverMajor(major: number) {
      a.serverMajor = major;
    },
    dataDir: a.dataDir,
    dsn(database: string, withPassword = false) {
      const auth = withPassword ? `postgres:${encodeURIComponent(a.password)}` : 'postgres';
      return `postgresql://${auth}@127.0.0.1:${a.port}/${encodeURIComponent(database)}`;
    },
    async psql(sql: string, database = 'postgres') {
      const failed = (why: string) => new PgClusterError(redact(`psql on database "${database}" (127.0.0.1:${a.port}) failed: ${why}`, a.password));
      const statements = psqlStatements(sql);
      if (statements) {
        const target = { host: '127.0.0.1', port: a.port, user: 'postgres', password: a.password, database };
        return runStatements(target, statements).catch((e: unknown) => {
          throw failed((e as Error).message);
        });
      }
      const r = await execa(
        join(a.binDir, 'psql'),
        ['-X', '-q', '-w', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(a.port), '-U', 'postgres', '-d', database, '-f', '-'],
        { input: sql, env: clientEnv(cluster), extendEnv: false, reject: false, timeout: 300_000 },
      );
      if (r.exitCode !== 0) {
        throw failed(String(r.stderr).trim() || (r.timedOut ? 'timed out' : `exit ${r.exitCode ?? r.signal}`));
      }
      return String(r.stdout).trim();
    },
    async changePassword(password: string) {
      if (!password || /[\r\n]/.test(password)) throw new PgClusterError('the cluster password must be non-empty and on one line');
      if (password === a.password) return;
      await cluster.psql(`SET log_statement = 'none'; ALTER ROLE postgres PASSWORD ${sqlLiteral(password)};`);
      a.password = password;
    },
    stop,
  };
  return cluster;
}

/**
 * Stops the server of dataDir (the postmaster.pid's, else `pid`): SIGINT (fast shutdown), SIGKILL
 * after a grace period, then removes its temp dir (dataDir's parent).
 */
export async function stopClusterAt(dataDir: string, pid?: number, log: (line: string) => void = () => {}): Promise<void> {
  const running = readPid(dataDir) ?? pid;
  if (running) {
    signal(running, 'SIGINT'); // fast shutdown: roll back sessions, checkpoint, exit
    if (!(await waitGone(running, STOP_GRACE_MS))) {
      log(`postmaster ${running} ignored SIGINT for ${STOP_GRACE_MS / 1000} s; killing it`);
      signal(running, 'SIGKILL');
      if (!(await waitGone(running, 5_000))) {
        throw new PgClusterError(
          `postmaster ${running} of ${dataDir} did not exit after SIGINT and SIGKILL`,
          await readLogTail(join(dirname(dataDir), 'server.log')),
        );
      }
    }
  }
  await rm(dirname(dataDir), { recursive: true, force: true });
}

/** Makes the run's initdb'd data dir of the default server now (pg-run-setup.ts), so the first copy does not wait for it. */
export async function prepareRunTemplate(): Promise<void> {
  const serverBinDir = findPgBinDir();
  if (serverBinDir && pgServerAvailable()) await runTemplate(serverUser(), serverBinDir);
}

export async function startCluster(opts: StartClusterOptions = {}): Promise<PgCluster> {
  const log = opts.log ?? (() => {});
  const binDir = findPgBinDir();
  if (!binDir) throw new PgClusterError(`no PostgreSQL server binaries found under ${PG_ROOT}/*/bin`);
  const serverBinDir = opts.serverBinDir ?? binDir;
  const absent = SERVER_BINARIES.filter((b) => !existsSync(join(serverBinDir, b)));
  if (absent.length) throw new PgClusterError(`${serverBinDir} lacks the server binaries ${absent.join(', ')}`);
  const password = opts.password ?? randomBytes(18).toString('base64url');
  if (!password || /[\r\n]/.test(password)) throw new PgClusterError('the cluster password must be non-empty and on one line');
  const runAs = serverUser();

  const baseDir = await mkdtemp(join(tmpdir(), 'svc-pg-'));
  const dataDir = join(baseDir, 'data');
  const logFile = join(baseDir, 'server.log');
  const entry: Live = { pid: undefined, baseDir };
  const server = (bin: string, args: string[], timeout: number) => asServerUser(runAs, join(serverBinDir, bin), args, baseDir, timeout);

  const fail = async (what: string, output?: string): Promise<never> => {
    const logTail = await readLogTail(logFile);
    const detail = output?.trim() ? `: ${tail(output, 15)}` : '';
    throw new PgClusterError(redact(`${what}${detail}`, password), logTail && redact(logTail, password));
  };

  try {
    if (runAs) {
      await chown(baseDir, runAs.uid, runAs.gid);
      await chmod(baseDir, 0o700);
    }

    const template = await runTemplate(runAs, serverBinDir);
    if (template) {
      log(`copying the run's initdb'd data dir to ${dataDir} (${serverBinDir})`);
      const copy = await asServerUser(runAs, 'cp', ['-a', template.dataDir, dataDir], baseDir, 120_000);
      if (copy.exitCode !== 0) await fail(`copying the initdb'd data dir failed (exit ${copy.exitCode ?? copy.signal})`, String(copy.all ?? ''));
    } else {
      log(`initdb ${dataDir} (${serverBinDir})`);
      const init = await initdb(runAs, serverBinDir, baseDir, password);
      if (init.exitCode !== 0) await fail(`initdb failed (exit ${init.exitCode ?? init.signal})`, String(init.all ?? ''));
    }

    // Replace initdb's pg_hba: SCRAM everywhere, TCP from loopback only, no trust and no replication.
    // Writing over the existing file keeps its owner (postgres) and mode.
    await writeFile(
      join(dataDir, 'pg_hba.conf'),
      [
        '# Written by svc devtools: SCRAM password auth only, TCP from 127.0.0.1 only.',
        'local   all   all                  scram-sha-256',
        'host    all   all   127.0.0.1/32   scram-sha-256',
        '',
      ].join('\n'),
    );

    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const serverOpts = [
        '-c listen_addresses=127.0.0.1',
        `-p ${port}`,
        `-k ${shQuote(baseDir)}`,
        '-c fsync=off',
        '-c synchronous_commit=off',
        '-c full_page_writes=off',
        '-c shared_buffers=32MB',
        '-c password_encryption=scram-sha-256',
        ...Object.entries(opts.settings ?? {}).map(([k, v]) => `-c ${shQuote(`${k}=${v}`)}`),
      ].join(' ');
      log(`starting server on 127.0.0.1:${port}`);
      const start = await server('pg_ctl', ['start', '-D', dataDir, '-w', '-t', '60', '-l', logFile, '-o', serverOpts], 90_000);
      if (start.exitCode === 0) break;
      const logText = (await readLogTail(logFile)) ?? '';
      const collided = /could not bind|address already in use|could not create any TCP\/IP sockets/i.test(logText);
      if (!collided || attempt >= START_ATTEMPTS) {
        await fail(`pg_ctl start failed on 127.0.0.1:${port} (exit ${start.exitCode ?? start.signal}, attempt ${attempt})`, String(start.all ?? ''));
      }
      log(`port ${port} was taken, retrying`);
    }

    entry.pid = readPid(dataDir);
    if (!entry.pid) await fail('the server started but left no postmaster.pid');
    if (!opts.detached) {
      live.add(entry);
      installExitHook();
    }
    log(`PostgreSQL running on 127.0.0.1:${port}, pid ${entry.pid}`);

    let stopped: Promise<void> | undefined;
    const stopServer = async (): Promise<void> => {
      try {
        await stopClusterAt(dataDir, entry.pid, log);
      } finally {
        live.delete(entry);
      }
      log(`stopped PostgreSQL on 127.0.0.1:${port}`);
    };
    const address = { port, password: template?.password ?? password, binDir, serverBinDir, dataDir, serverMajor: 0 };
    const cluster = clusterAt(address, () => (stopped ??= stopServer()));
    await cluster.changePassword(password);
    cluster.serverMajor = Math.floor(Number(await cluster.psql('SHOW server_version_num')) / 10_000);
    return cluster;
  } catch (err) {
    // Leave nothing behind from a half-started cluster.
    const pid = readPid(dataDir);
    if (pid) {
      signal(pid, 'SIGQUIT');
      await waitGone(pid, 5_000);
    }
    live.delete(entry);
    await rm(baseDir, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
}
