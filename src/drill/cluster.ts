import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { InterruptedError, LocalToolError } from '../errors.js';
import { shellCommand } from '../output/shell-quote.js';
import type { Target } from '../restore/target.js';
import { serverUser, type OsUser } from './os-user.js';
import { recordCluster, releaseCluster } from './orphans.js';
import { noSpace, SPACE_HINT } from './space.js';
import { alive, live, liveNet, POLL_MS, postmaster, runningIn, signal, waitGone } from './postmaster.js';
import type { ServerBinaries } from './server-binaries.js';
import { copyTemplate, discardTemplate, saveTemplate, templatePath } from './template.js';

type Env = Record<string, string | undefined>;

/** A throwaway PostgreSQL cluster of one drill run (cli-contract 9, step 2). */
export interface ScratchCluster {
  readonly port: number;
  readonly binaries: ServerBinaries;
  /** The cluster's directory (data dir, socket, log) under the work dir. */
  readonly dir: string;
  /** A connection to `database` as the cluster's superuser; the password lives only here and in the run's PGPASSFILE. */
  target(database: string): Target;
  /** How a person reaches a kept cluster (--keep): no password needed on its private socket. */
  howToReach(database: string): string[];
  /** Stops the server and removes its directory, or with `keep` leaves both; safe to call twice. */
  stop(opts?: { keep?: boolean }): Promise<void>;
}

const SUPERUSER = 'postgres';
const READY_TIMEOUT_MS = 60_000;
const STOP_WAIT_MS = 15_000;
const PORT_ATTEMPTS = 5;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * Starts a scratch cluster: initdb into a new 0700 directory under `workDir`, SCRAM with a random
 * password on 127.0.0.1 only (and a private socket in that directory), throwaway settings (no
 * fsync, no synchronous commit, no full-page writes); as root it runs as an unprivileged user.
 * pg_ctl is not asked to wait: its own polling adds 100 ms to every start and stop, so svc polls
 * postmaster.pid itself.
 */
export async function startScratchCluster(binaries: ServerBinaries, workDir: string, env: Env, abort: AbortSignal): Promise<ScratchCluster> {
  const user = serverUser();
  const dir = await mkdtemp(join(workDir, 'svc-drill-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const password = randomBytes(24).toString('base64url');
  let pid: number | undefined;
  liveNet(dir, () => pid ?? postmaster(dataDir)?.pid);
  const serverEnv: Env = { PATH: env.PATH, LC_ALL: 'C', TZ: env.TZ };
  const server = (program: string, args: string[], cancel?: AbortSignal) =>
    execa(join(binaries.dir, program), args, {
      cwd: dir,
      env: serverEnv,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      all: true,
      ...(cancel ? { cancelSignal: cancel } : {}),
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
  const cluster = handle(binaries, dir, dataDir, password, user, () => pid, server);
  try {
    await recordCluster(dir).catch(async (err: unknown) => {
      throw (err as NodeJS.ErrnoException).code === 'ENOSPC' ? new LocalToolError(`The scratch cluster could not be made: ${await noSpace(workDir, 'No space left on device')}`, SPACE_HINT) : err;
    });
    await chmod(dir, 0o700);
    if (user) await chown(dir, user.uid, user.gid);
    const template = templatePath(binaries, user, env);
    let fromTemplate = await copyTemplate(template, dataDir);
    if (!fromTemplate) await initdbAndSave(server, dataDir, template, user, workDir, abort);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const started = await start(server, dataDir, logFile, dir, port, abort);
      if (started.pid) {
        pid = started.pid;
        cluster.port = port;
        await recordCluster(dir, pid);
        await setPassword(binaries, dir, port, password, env, abort);
        return cluster;
      }
      if (started.exited && fromTemplate) {
        // A cached template that does not start (corrupt, damaged on disk) would fail every later
        // drill: it is made again from a fresh initdb, once.
        fromTemplate = false;
        await Promise.all([discardTemplate(template), rm(dataDir, { recursive: true, force: true })]);
        await initdbAndSave(server, dataDir, template, user, workDir, abort);
        attempt -= 1;
        continue;
      }
      if (!started.portTaken || attempt >= PORT_ATTEMPTS) throw new LocalToolError(`The scratch cluster did not start: ${started.reason}`, reachHint(user));
    }
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

function reachHint(user: OsUser | undefined): string {
  return user
    ? `The server runs as the ${user.name} user: it must be able to reach --work-dir (each directory above it searchable), e.g. --work-dir /tmp.`
    : 'Check --work-dir (the cluster lives there) and the server binaries (--pg-bindir).';
}

type Server = (program: string, args: string[], cancel?: AbortSignal) => ReturnType<typeof execa>;

async function initdbAndSave(server: Server, dataDir: string, template: string, user: OsUser | undefined, workDir: string, abort: AbortSignal): Promise<void> {
  await initdb(server, dataDir, user, workDir, abort);
  await saveTemplate(dataDir, template);
}

/**
 * initdb without a password (the data directory may become the template of later runs, which must
 * hold no secret: setPassword gives each run its own once the server is up).
 */
async function initdb(server: Server, dataDir: string, user: OsUser | undefined, workDir: string, abort: AbortSignal): Promise<void> {
  // A signal stops initdb (SIGTERM: it removes what it wrote) rather than wait for it to finish.
  const args = ['-D', dataDir, '-U', SUPERUSER, '--auth-host=scram-sha-256', '--auth-local=trust', '--encoding=UTF8', '--locale=C', '--no-sync'];
  const r = await server('initdb', args, abort);
  if (abort.aborted) throw new InterruptedError('Interrupted while the scratch cluster was starting.');
  if (r.exitCode !== 0) {
    const output = String(r.all ?? '').trim();
    const last = output.split('\n').slice(-3).join(' ');
    const full = await noSpace(workDir, output);
    throw new LocalToolError(`initdb of the scratch cluster failed (exit ${r.exitCode ?? r.signal}): ${full ?? last}`, full ? SPACE_HINT : reachHint(user));
  }
  // TCP from 127.0.0.1 with SCRAM only; the socket lives in the 0700 cluster directory, which only
  // svc's user (or root) can enter: trust there is what --keep tells a person to use.
  await writeFile(
    join(dataDir, 'pg_hba.conf'),
    ['# svc restore drill scratch cluster', 'local all all trust', 'host all all 127.0.0.1/32 scram-sha-256', ''].join('\n'),
  );
}

/**
 * The run's random password for TCP connections, set over the private socket (trust there): on
 * psql's stdin, never its argv. The server's own psql where its directory has one, else PATH's.
 */
async function setPassword(binaries: ServerBinaries, socketDir: string, port: number, password: string, env: Env, abort: AbortSignal): Promise<void> {
  const own = join(binaries.dir, 'psql');
  const r = await execa(existsSync(own) ? own : 'psql', ['-X', '-q', '-w', '-v', 'ON_ERROR_STOP=1', '-h', socketDir, '-p', String(port), '-U', SUPERUSER, '-d', 'postgres'], {
    input: `ALTER ROLE ${SUPERUSER} PASSWORD '${password}';\n`,
    env: { PATH: env.PATH, LC_ALL: 'C' },
    extendEnv: false,
    reject: false,
    cancelSignal: abort,
  });
  if (abort.aborted) throw new InterruptedError('Interrupted while the scratch cluster was starting.');
  if (r.exitCode !== 0) throw new LocalToolError(`The scratch cluster started, but its password could not be set: ${String(r.stderr).trim().split('\n')[0] ?? ''}`);
}

async function start(
  server: Server,
  dataDir: string,
  logFile: string,
  socketDir: string,
  port: number,
  abort: AbortSignal,
): Promise<{ pid?: number; portTaken?: boolean; exited?: boolean; reason?: string }> {
  const settings = ['-c listen_addresses=127.0.0.1', `-p ${port}`, `-k ${socketDir}`, '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
  const r = await server('pg_ctl', ['start', '-W', '-D', dataDir, '-l', logFile, '-o', settings.join(' ')]);
  if (r.exitCode !== 0) return { reason: `pg_ctl start exited ${r.exitCode ?? r.signal}: ${String(r.all ?? '').trim()}` };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (let poll = 1; ; poll++) {
    const pm = postmaster(dataDir);
    if (pm?.ready) return { pid: pm.pid };
    const log = await readFile(logFile, 'utf8').catch(() => '');
    if (/could not bind|address already in use|could not create any TCP\/IP sockets/i.test(log)) return { portTaken: true, reason: 'its port was taken' };
    if (/FATAL|PANIC/.test(log) && !pm) return { reason: log.trim().split('\n').slice(-2).join(' ') };
    // A server that exited at once (a corrupt data directory) is not waited for until the deadline.
    if ((pm && !alive(pm.pid)) || (!pm && poll % 10 === 0 && !runningIn(dataDir))) {
      return { exited: true, reason: `the server exited at once${log.trim() ? `: ${log.trim().split('\n').slice(-2).join(' ')}` : ''}` };
    }
    if (abort.aborted) throw new InterruptedError('Interrupted while the scratch cluster was starting.');
    if (Date.now() > deadline) return { reason: `it was not ready after ${READY_TIMEOUT_MS / 1000}s` };
    await sleep(POLL_MS);
  }
}

function handle(
  binaries: ServerBinaries,
  dir: string,
  dataDir: string,
  password: string,
  user: OsUser | undefined,
  pid: () => number | undefined,
  server: Server,
): ScratchCluster & { port: number } {
  let stopped: Promise<void> | undefined;
  const self = {
    port: 0,
    binaries,
    dir,
    target(database: string): Target {
      return { host: '127.0.0.1', port: self.port, user: SUPERUSER, database, password, params: { PGHOST: '127.0.0.1', PGPORT: String(self.port), PGUSER: SUPERUSER } };
    },
    howToReach(database: string): string[] {
      const as = user ? ['runuser', '-u', user.name, '--'] : [];
      return [
        shellCommand(['psql', '-h', dir, '-p', String(self.port), '-U', SUPERUSER, '-d', database]),
        `${shellCommand([...as, join(binaries.dir, 'pg_ctl'), '-D', dataDir, 'stop', '-m', 'fast'])}   # then: ${shellCommand(['rm', '-rf', dir])}`,
      ];
    },
    stop(opts: { keep?: boolean } = {}): Promise<void> {
      stopped ??= (async () => {
        if (opts.keep) {
          await releaseCluster(dir);
          live.delete(dir);
          return;
        }
        const running = pid() ?? postmaster(dataDir)?.pid;
        if (running && alive(running)) {
          // Fast shutdown, then immediate, then SIGKILL: the run must not leave a postmaster behind.
          await server('pg_ctl', ['stop', '-W', '-D', dataDir, '-m', 'fast']);
          if (!(await waitGone(running, STOP_WAIT_MS))) {
            await server('pg_ctl', ['stop', '-W', '-D', dataDir, '-m', 'immediate']);
            if (!(await waitGone(running, STOP_WAIT_MS))) signal(running, 'SIGKILL');
            await waitGone(running, STOP_WAIT_MS);
          }
        }
        await rm(dir, { recursive: true, force: true });
        live.delete(dir);
      })();
      return stopped;
    },
  };
  return self;
}
