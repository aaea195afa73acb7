import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { execa } from 'execa';
import { readyTimeoutMs } from '../contract-timers.js';
import { InterruptedError } from '../errors.js';
import { alive, findPostmaster, POLL_MS, postmaster, runningIn, signal } from './postmaster.js';

type Env = Record<string, string | undefined>;
export type Server = (program: string, args: string[], cancel?: AbortSignal) => ReturnType<typeof execa>;

/** A start's outcome: the postmaster's pid (as svc sees it), or why not. */
export interface Started {
  pid?: number;
  portTaken?: boolean;
  exited?: boolean;
  reason?: string;
}

/** Throwaway settings: a scratch cluster's data is worth nothing after the run. */
const THROWAWAY = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];

const tail = (log: string) => log.trim().split('\n').slice(-2).join(' ');

/** Waits for postmaster.pid to say ready; `gone` tells a server that exited at once from one still starting. */
async function ready(
  dataDir: string,
  logFile: string,
  abort: AbortSignal,
  gone: (pm: { pid: number } | undefined, poll: number) => boolean,
  pid: (inside: number) => number | undefined,
): Promise<Started> {
  const timeoutMs = readyTimeoutMs();
  const deadline = Date.now() + timeoutMs;
  for (let poll = 1; ; poll++) {
    const pm = postmaster(dataDir);
    const outside = pm?.ready ? pid(pm.pid) : undefined;
    if (outside) return { pid: outside };
    const log = await readFile(logFile, 'utf8').catch(() => '');
    if (/could not bind|address already in use|could not create any TCP\/IP sockets/i.test(log)) return { portTaken: true, reason: 'its port was taken' };
    if (/FATAL|PANIC/.test(log) && !pm) return { reason: tail(log) };
    // A server that exited at once (a corrupt data directory) is not waited for until the deadline.
    if (gone(pm, poll)) return { exited: true, reason: `the server exited at once${log.trim() ? `: ${tail(log)}` : ''}` };
    if (abort.aborted) throw new InterruptedError('Interrupted while the scratch cluster was starting.');
    if (Date.now() > deadline) return { reason: `it was not ready after ${timeoutMs / 1000}s` };
    await sleep(POLL_MS);
  }
}

/**
 * pg_ctl start, listening on 127.0.0.1 and a socket in `socketDir`. pg_ctl is not asked to wait: its
 * own polling adds 100 ms to every start and stop, so svc polls postmaster.pid itself.
 */
export async function startWithPgCtl(
  server: Server,
  at: { dataDir: string; logFile: string; socketDir: string; port: number },
  abort: AbortSignal,
): Promise<Started> {
  const settings = ['-c listen_addresses=127.0.0.1', `-p ${at.port}`, `-k ${at.socketDir}`, ...THROWAWAY].join(' ');
  const r = await server('pg_ctl', ['start', '-W', '-D', at.dataDir, '-l', at.logFile, '-o', settings]);
  if (r.exitCode !== 0) return { reason: `pg_ctl start exited ${r.exitCode ?? r.signal}: ${String(r.all ?? '').trim()}` };
  return ready(
    at.dataDir,
    at.logFile,
    abort,
    (pm, poll) => (pm ? !alive(pm.pid) : poll % 10 === 0 && !runningIn(at.dataDir)),
    (pid) => pid,
  );
}

/**
 * The postmaster run in namespaces of its own (isolation.ts): `confine` wraps its argv, it listens on
 * no TCP address (its network namespace has none), only on the socket in `socketDir`. postmaster.pid
 * holds its pid inside the PID namespace, which names another process outside: svc finds and keeps
 * the pid its own /proc shows. The wrapper runs in a session of its own, as pg_ctl's server does,
 * so a Ctrl-C meant for svc reaches the server only through svc's clean-up.
 */
export async function startConfined(
  argv: string[],
  at: { dir: string; dataDir: string; logFile: string; socketDir: string; port: number; env: Env },
  abort: AbortSignal,
): Promise<Started & { wrapper: ChildProcess }> {
  const server = [...argv, '-D', at.dataDir, '-c', 'listen_addresses=', '-p', String(at.port), '-k', at.socketDir, ...THROWAWAY];
  const log = await open(at.logFile, 'a', 0o600);
  let wrapper: ChildProcess;
  try {
    wrapper = spawn(server[0]!, server.slice(1), { cwd: at.dir, env: at.env as NodeJS.ProcessEnv, detached: true, stdio: ['ignore', log.fd, log.fd] });
  } finally {
    await log.close();
  }
  let exited = false;
  wrapper.once('exit', () => (exited = true));
  wrapper.once('error', () => (exited = true));
  wrapper.unref();
  try {
    return {
      ...(await ready(
        at.dataDir,
        at.logFile,
        abort,
        () => exited,
        () => findPostmaster(at.dataDir),
      )),
      wrapper,
    };
  } catch (err) {
    endNamespace(wrapper);
    throw err;
  }
}

/**
 * Ends a confined server's namespaces whatever runs in them: their init (the wrapper's child) is
 * killed, and with it every process of its PID namespace. Only while the wrapper, svc's own child,
 * still runs: after that its pid may name another process.
 */
export function endNamespace(wrapper: ChildProcess | undefined): void {
  if (!wrapper?.pid || wrapper.exitCode !== null || wrapper.signalCode !== null) return;
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${wrapper.pid}/task/${wrapper.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    // Gone meanwhile.
  }
  for (const child of children) signal(Number(child), 'SIGKILL');
  signal(wrapper.pid, 'SIGKILL');
}
