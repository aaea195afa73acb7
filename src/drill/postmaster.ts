import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { addToExitNet } from '../exit-net.js';

/** How often a postmaster is looked at while svc waits for it. */
export const POLL_MS = 10;

/**
 * The postmasters and directories of live clusters: a second signal ends svc with process.exit,
 * skipping every finally; this net still stops them (immediate shutdown) and removes their files.
 */
export const live = new Map<string, () => number | undefined>();
export function liveNet(dir: string, pid: () => number | undefined): void {
  live.set(dir, pid);
  addToExitNet(stopLive);
}

/** Immediate shutdown (SIGQUIT) of every live cluster's postmaster, and its directory removed; what could not be removed. */
function stopLive(): string[] {
  const left: string[] = [];
  for (const [d, p] of live) {
    const n = p();
    if (n) signal(n, 'SIGQUIT');
    try {
      rmSync(d, { recursive: true, force: true });
      live.delete(d);
    } catch {
      left.push(d);
    }
  }
  return left;
}

export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (reparented, not yet reaped) counts as gone.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return true;
  }
}

/** postmaster.pid: its pid (line 1) and whether it accepts connections (line 8, "ready"). */
export function postmaster(dataDir: string): { pid: number; ready: boolean } | undefined {
  try {
    const lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    return Number.isInteger(pid) && pid > 0 ? { pid, ready: (lines[7] ?? '').trim() === 'ready' } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether any live process names `dataDir` in its argv: the postmaster, or the shell pg_ctl starts it
 * through. Before postmaster.pid exists, this is how svc tells a server still starting from one that
 * exited at once (a corrupt data directory), rather than wait out its whole start-up timeout.
 */
export function runningIn(dataDir: string): boolean {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return true;
  }
  return pids.some((pid) => {
    try {
      return Number(pid) !== process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir) && alive(Number(pid));
    } catch {
      return false;
    }
  });
}

/** Whether `pid` is the postmaster of `dataDir`: a postgres process whose argv names that data directory. */
export function isPostmasterOf(pid: number, dataDir: string): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return basename(argv[0] ?? '') === 'postgres' && argv.includes(dataDir);
  } catch {
    return false;
  }
}

/**
 * The postmaster of `dataDir` as svc's /proc shows it: for a server in a PID namespace of its own,
 * postmaster.pid holds a pid that means another process here. Its backends rewrite their argv, so
 * only the postmaster still names the data directory.
 */
export function findPostmaster(dataDir: string): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  const found = pids.map(Number).find((pid) => isPostmasterOf(pid, dataDir) && alive(pid));
  return found;
}

export async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}
