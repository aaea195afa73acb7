import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * Who owns a directory svc left in a work dir or TMPDIR (a scratch cluster, an artifact, a
 * PGPASSFILE): the svc process, by pid and start time, so that a later run can tell an orphan of a
 * killed run (kill -9, an OOM kill, a CI runner's hard stop) from a live run's files (cli-contract
 * 9.12). A pid alone is not enough: pids are reused, the start time of /proc/<pid>/stat is not.
 */
export const OWNER_FILE = 'owner.json';

export interface ProcessRef {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot); null where /proc is not there. */
  start: string | null;
}

export interface OwnerRecord {
  kind: 'cluster' | 'artifact' | 'pgpass';
  host: string;
  svc: ProcessRef;
  /** A scratch cluster's postmaster, once it runs, and its data directory. */
  postmaster?: ProcessRef & { dataDir: string };
}

/** The start time of a process (field 22 of /proc/<pid>/stat), or undefined where it cannot be read. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces: fields are counted after its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (/^[ZX]$/.test(fields[0] ?? '')) return undefined;
    return fields[19];
  } catch {
    return undefined;
  }
}

export function processRef(pid: number): ProcessRef {
  return { pid, start: processStart(pid) ?? null };
}

/** Whether the process a record names is still the one that wrote it: alive, not a zombie, and started at the same tick. */
export function stillRunning(ref: ProcessRef): boolean {
  if (ref.pid === process.pid) return true;
  try {
    process.kill(ref.pid, 0);
  } catch (err) {
    // EPERM: it exists, as another user's process.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStart(ref.pid);
  if (ref.start === null) return start !== undefined || !existsProc();
  return start === ref.start;
}

function existsProc(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}

/** Writes `<dir>/owner.json` (0600): this svc process owns `dir`. */
export async function writeOwner(dir: string, kind: OwnerRecord['kind'], postmaster?: OwnerRecord['postmaster']): Promise<void> {
  const record: OwnerRecord = { kind, host: hostname(), svc: processRef(process.pid), ...(postmaster ? { postmaster } : {}) };
  await writeFile(join(dir, OWNER_FILE), `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/** `<dir>/owner.json`, or undefined where there is none or it is not one svc wrote. */
export function readOwner(dir: string): OwnerRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as OwnerRecord;
    return r && typeof r.host === 'string' && Number.isInteger(r.svc?.pid) && ['cluster', 'artifact', 'pgpass'].includes(r.kind) ? r : undefined;
  } catch {
    return undefined;
  }
}
