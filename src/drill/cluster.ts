import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { LocalToolError } from '../errors.js';
import { shellCommand } from '../output/shell-quote.js';
import type { Target } from '../restore/target/target.js';
import type { Isolation } from './isolation.js';
import { serverUser, type OsUser } from './os-user.js';
import { recordCluster, releaseCluster } from './orphans.js';
import { noSpace, SPACE_HINT } from './space.js';
import { alive, findPostmaster, live, liveNet, postmaster, signal, waitGone } from './postmaster.js';
import type { ServerBinaries } from './server-binaries.js';
import { endNamespace, startConfined, startWithPgCtl, type Server, type Started } from './server-start.js';
import { socketDir, type SocketDir } from './socket-path.js';
import { initdbAndSave, reachHint, setPassword, SUPERUSER } from './cluster-init.js';
import { copyTemplate, discardTemplate, templatePath } from './template.js';

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

/** A confined server has no TCP port: the number only names its socket. */
const SOCKET_PORT = 5432;
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
 * Starts a scratch cluster: initdb into a new 0700 directory under `workDir`, throwaway settings (no
 * fsync, no synchronous commit, no full-page writes). As root it runs as an unprivileged user, on
 * 127.0.0.1 only with SCRAM and a random password (and a private socket in that directory); with
 * `namespace` isolation the server runs confined (isolation.ts), on that socket alone.
 */
export async function startScratchCluster(
  binaries: ServerBinaries,
  workDir: string,
  env: Env,
  abort: AbortSignal,
  isolation: Isolation,
  /** Told once the data directory's copy (or initdb) runs: a child process, which the caller's own work need not wait behind. */
  copying?: () => void,
): Promise<ScratchCluster> {
  const user = serverUser();
  const dir = await mkdtemp(join(workDir, 'svc-drill-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const password = randomBytes(24).toString('base64url');
  const confine = isolation.confine;
  let pid: number | undefined;
  // A confined server's postmaster.pid names a pid of its own namespace: never one to signal from here.
  const running = () => pid ?? (confine ? findPostmaster(dataDir) : postmaster(dataDir)?.pid);
  liveNet(dir, running);
  const serverEnv: Env = { PATH: env.PATH, LC_ALL: 'C', TZ: env.TZ };
  const server: Server = (program, args, cancel) =>
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
  let socket: SocketDir | undefined;
  let wrapper: ChildProcess | undefined;
  const dispose = async () => {
    endNamespace(wrapper);
    await socket?.dispose();
  };
  const cluster = handle({ binaries, dir, dataDir, password, user, confined: !!confine, socket: () => socket?.path ?? dir, pid: running, server, dispose });
  try {
    await recordCluster(dir).catch(async (err: unknown) => {
      throw (err as NodeJS.ErrnoException).code === 'ENOSPC'
        ? new LocalToolError(`The scratch cluster could not be made: ${await noSpace(workDir, 'No space left on device')}`, SPACE_HINT)
        : err;
    });
    await chmod(dir, 0o700);
    if (user) await chown(dir, user.uid, user.gid);
    socket = await socketDir(dir);
    const template = templatePath(binaries, user, env);
    // copyTemplate starts cp before it returns.
    const copied = copyTemplate(template, dataDir);
    copying?.();
    let fromTemplate = await copied;
    if (!fromTemplate) await initdbAndSave(server, dataDir, template, user, workDir, abort);
    for (let attempt = 1; ; attempt++) {
      const port = confine ? SOCKET_PORT : await freePort();
      const at = { dir, dataDir, logFile, socketDir: socket.path, port, env: serverEnv };
      let started: Started;
      if (confine) {
        const argv = confine([join(binaries.dir, 'postgres')], { dir, bindir: binaries.dir, ...(socket.link ? { link: socket.link } : {}) });
        ({ wrapper, ...started } = await startConfined(argv, at, abort));
      } else {
        started = await startWithPgCtl(server, at, abort);
      }
      if (started.pid) {
        pid = started.pid;
        cluster.port = port;
        await recordCluster(dir, pid);
        await setPassword(socket.path, port, password, abort);
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

interface Parts {
  binaries: ServerBinaries;
  dir: string;
  dataDir: string;
  password: string;
  user: OsUser | undefined;
  /** The server runs in namespaces of its own: reached on its socket, stopped by signals (pg_ctl would read a pid of its namespace). */
  confined: boolean;
  socket: () => string;
  pid: () => number | undefined;
  server: Server;
  dispose: () => Promise<void> | undefined;
}

/** Fast shutdown, then immediate, then SIGKILL: the run must not leave a postmaster behind. */
async function shutDown(p: Parts, running: number): Promise<void> {
  const stop = async (mode: 'fast' | 'immediate') => {
    if (p.confined) signal(running, mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    else await p.server('pg_ctl', ['stop', '-W', '-D', p.dataDir, '-m', mode]);
    return waitGone(running, STOP_WAIT_MS);
  };
  if (!(await stop('fast')) && !(await stop('immediate'))) {
    signal(running, 'SIGKILL');
    await waitGone(running, STOP_WAIT_MS);
  }
}

function handle(p: Parts): ScratchCluster & { port: number } {
  const { binaries, dir, dataDir, password, user } = p;
  let stopped: Promise<void> | undefined;
  const self = {
    port: 0,
    binaries,
    dir,
    target(database: string): Target {
      const host = p.confined ? p.socket() : '127.0.0.1';
      return { host, port: self.port, user: SUPERUSER, database, password, params: { PGHOST: host, PGPORT: String(self.port), PGUSER: SUPERUSER } };
    },
    howToReach(database: string): string[] {
      const as = user ? ['runuser', '-u', user.name, '--'] : [];
      // A confined postmaster's own pid file names its namespace's pid: pg_ctl stop would signal another process.
      const stop = p.confined ? ['kill', '-INT', String(p.pid() ?? '')] : [...as, join(binaries.dir, 'pg_ctl'), '-D', dataDir, 'stop', '-m', 'fast'];
      return [
        shellCommand(['psql', '-h', p.socket(), '-p', String(self.port), '-U', SUPERUSER, '-d', database]),
        `${shellCommand(stop)}   # then: ${shellCommand(['rm', '-rf', dir, ...(p.socket() === dir ? [] : [p.socket()])])}`,
      ];
    },
    stop(opts: { keep?: boolean } = {}): Promise<void> {
      stopped ??= (async () => {
        if (opts.keep) {
          await releaseCluster(dir);
          live.delete(dir);
          return;
        }
        const running = p.pid();
        if (running && alive(running)) await shutDown(p, running);
        await rm(dir, { recursive: true, force: true });
        await p.dispose();
        live.delete(dir);
      })();
      return stopped;
    },
  };
  return self;
}
