/**
 * Ways to catch a real `svc restore drill` in a given phase, for its signal tests (the restore
 * engine's own phases are in restore-signals.ts): the drill's API answered over loopback beside the
 * RestoreHarness's getBackup and createRestore, a server-binaries directory (--pg-bindir) whose
 * initdb or `pg_ctl stop` waits at a gate, a gate in front of any client tool chosen by its argv,
 * SQL sessions into the drill's own scratch cluster (through its private socket), and the list of
 * every process of a run that is still alive.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { http, HttpResponse } from 'msw';
import { fixture } from './fixtures.js';
import { psqlStatements, runStatements } from './pg-query.js';
import { BACKUP_ID, waitFor, type RestoreHarness } from './restore-harness.js';
import type { SqlServer } from './restore-signals.js';

export const DRILLED = 'db_orders';
/** A second database for --parallel: its one completed backup serves the same artifact. */
export const SECOND = { databaseId: 'db_billing', backupJobId: 'bj_billing' } as const;

/**
 * The drill's reads over loopback, beside the harness's getBackup and createRestore: getProfile, and
 * for DRILLED (its backup: the harness's BACKUP_ID) and SECOND getDatabase, listDatabaseBackups (one
 * completed backup each) and getRecoverySummary.
 */
export function drillApi(h: RestoreHarness): void {
  const [completed] = fixture('backups-list').backupJobs as Array<Record<string, unknown>>;
  const database = fixture('database-get').database as Record<string, unknown>;
  const summary = fixture('recovery-summary') as Record<string, unknown>;
  const reads = (databaseId: string, backupJobId: string, name: string) => [
    http.get(`*/api/v1/databases/${databaseId}`, () => HttpResponse.json({ database: { ...database, id: databaseId, name } })),
    http.get(`*/api/v1/databases/${databaseId}/backups`, () =>
      HttpResponse.json({ backupJobs: [{ ...completed, id: backupJobId, protectedDatabaseId: databaseId }], nextCursor: null }),
    ),
    http.get(`*/api/v1/databases/${databaseId}/recovery/summary`, () => HttpResponse.json({ ...summary, databaseId })),
  ];
  h.api.use(
    http.get('*/api/v1/profile', () => HttpResponse.json(fixture('profile'))),
    http.get(`*/api/v1/backups/${SECOND.backupJobId}`, () =>
      HttpResponse.json({ ...h.backupBody(), id: SECOND.backupJobId, protectedDatabaseId: SECOND.databaseId }),
    ),
    ...reads(DRILLED, BACKUP_ID, 'orders-prod'),
    ...reads(SECOND.databaseId, SECOND.backupJobId, 'billing'),
  );
}

/** Requests the API server saw whose path is `path` (no query string). */
export const requestsTo = (h: RestoreHarness, method: string, path: string) => h.api.exchanges.filter((e) => e.method === method && e.url.pathname === path);

/**
 * How long a test waits for a run to reach a gate: as long as the gate itself waits. Reaching one
 * can take a drill's whole start (node, the API, initdb or a template copy, the cluster), which under
 * parallel test files on a loaded 2-core machine took more than 20 s.
 */
const GATE_WAIT_MS = 60_000;

/** A gate in a shell shim: `reached(n)` once n matching runs wait there, `go()` to let them become the real program. */
export interface Gate {
  reached(count?: number): Promise<true>;
  go(): Promise<void>;
}

/**
 * A shim script for `real` that stops when `when` (a shell condition on "$@") holds, the first time
 * only or with `all` every time, until go() (then it execs the real program: same pid, so signals
 * reach it); a signal while it waits ends it, as it would end the program it stands for. With
 * `after`, the real program runs first and the wait is before its exit: its work is done, svc has not heard. It waits
 * 60 s at most, so a test that failed half-way leaves nothing running for long. The gate's directory
 * is open to every user: the scratch cluster's programs run as `postgres` when svc runs as root.
 */
async function gateScript(file: string, real: string, when: string, gateDir: string, all = false, after = false): Promise<Gate> {
  await mkdir(gateDir, { recursive: true });
  await chmod(gateDir, 0o777);
  await writeFile(
    file,
    [
      '#!/bin/sh',
      `if ${when} && ${all ? 'true' : `mkdir '${gateDir}/first' 2>/dev/null`}; then`,
      ...(after ? [`  '${real}' "$@"; status=$?`] : []),
      `  trap 'exit 130' INT TERM HUP`,
      `  touch '${gateDir}/waiting.'$$`,
      '  i=0',
      `  while [ ! -e '${gateDir}/go' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done`,
      ...(after ? ['  exit $status'] : []),
      'fi',
      `exec '${real}' "$@"`,
      '',
    ].join('\n'),
  );
  await chmod(file, 0o755);
  return {
    reached: (count = 1) =>
      waitFor(
        `${count} of ${file} waiting at its gate`,
        async () => (await readdir(gateDir)).filter((n) => n.startsWith('waiting.')).length >= count || undefined,
        GATE_WAIT_MS,
      ),
    go: () => writeFile(join(gateDir, 'go'), ''),
  };
}

/** A PATH directory whose `tool` waits at a gate when `when` holds (the first time, or with `all` every time; with `after`, once it has run); put `env.PATH` first on svc's PATH. */
export async function toolGate(
  h: RestoreHarness,
  tool: string,
  real: string,
  when: string,
  all = false,
  after = false,
): Promise<Gate & { env: { PATH: string } }> {
  const dir = await mkdtemp(join(h.scratch, `${tool}-gate-`));
  await mkdir(join(dir, 'bin'));
  const gate = await gateScript(join(dir, 'bin', tool), real, when, join(dir, 'gate'), all, after);
  return { ...gate, env: { PATH: `${join(dir, 'bin')}:${h.env().PATH}` } };
}

/**
 * A directory of server binaries for --pg-bindir: postgres itself, and initdb and pg_ctl as shims
 * that become the real ones, with a gate before initdb and/or before `pg_ctl stop`.
 */
export async function serverBindir(h: RestoreHarness, gates: { initdb?: boolean; stop?: boolean } = {}): Promise<{ dir: string; initdb?: Gate; stop?: Gate }> {
  const root = await mkdtemp(join(h.scratch, 'bindir-'));
  await chmod(root, 0o755);
  const dir = join(root, 'bin');
  await mkdir(dir, { mode: 0o755 });
  const real = h.cluster.serverBinDir;
  await symlink(join(real, 'postgres'), join(dir, 'postgres'));
  const never = 'false';
  const initdb = await gateScript(join(dir, 'initdb'), join(real, 'initdb'), gates.initdb ? 'true' : never, join(root, 'initdb-gate'));
  const stop = await gateScript(join(dir, 'pg_ctl'), join(real, 'pg_ctl'), gates.stop ? '[ "$1" = stop ]' : never, join(root, 'stop-gate'));
  return { dir, ...(gates.initdb ? { initdb } : {}), ...(gates.stop ? { stop } : {}) };
}

/**
 * The drill's own scratch cluster under `workDir`, once it accepts connections: reached as its
 * superuser through the private socket in its directory (trust there, the way --keep tells a person
 * to connect; only svc's user or root can enter that directory).
 */
export async function autoScratchServer(h: RestoreHarness, workDir: string): Promise<SqlServer> {
  const found = await waitFor('the scratch cluster accepting connections', async () => {
    for (const name of await readdir(workDir).catch(() => [] as string[])) {
      if (!name.startsWith('svc-drill-')) continue;
      const lines = (await readFile(join(workDir, name, 'data', 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
      if ((lines[7] ?? '').trim() === 'ready') return { dir: join(workDir, name), port: Number(lines[3]) };
    }
    return undefined;
  });
  const binDir = h.cluster.binDir;
  const session = (database: string) => ({
    args: ['-h', found.dir, '-p', String(found.port), '-U', 'postgres', '-d', database],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
  });
  return {
    binDir,
    session,
    async psql(sql, database = 'postgres') {
      const statements = psqlStatements(sql);
      if (statements) return runStatements({ host: found.dir, port: found.port, user: 'postgres', database }, statements);
      const s = session(database);
      const r = await execa(join(binDir, 'psql'), ['-X', '-q', '-w', '-A', '-t', '-v', 'ON_ERROR_STOP=1', ...s.args], {
        env: s.env,
        extendEnv: false,
        input: sql,
      });
      return String(r.stdout).trim();
    },
  };
}

/**
 * The scratch cluster's password, read while the run has it on disk: in a PGPASSFILE of the run
 * (`*:*:*:postgres:<password>`). None before the cluster is up: initdb runs without one.
 */
export async function scratchPassword(tmp: string): Promise<string | undefined> {
  for (const dir of await readdir(tmp).catch(() => [] as string[])) {
    if (!dir.startsWith('svc-pgpass-')) continue;
    const line = (await readFile(join(tmp, dir, 'pgpass'), 'utf8').catch(() => '')).split('\n')[0] ?? '';
    const fields = line.split(/(?<!\\):/);
    if (fields.length === 5 && fields[3] === 'postgres') return fields[4]!.replace(/\\(.)/g, '$1');
  }
  return undefined;
}

function readProc(pid: string, what: 'cmdline' | 'environ'): string {
  try {
    return readFileSync(`/proc/${pid}/${what}`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * Live (non-zombie) processes of a drill run, the test's own children aside: any whose command line names `workDir` or whose
 * working directory lies under it (the scratch cluster's postmaster and every backend: they run in
 * its data directory; pg_restore, whose argv names the artifact), and any whose environment carries a
 * PGPASSFILE under `tmp` (every psql and pg_restore svc starts, and the gate shims standing for them).
 */
export function drillProcesses(workDir: string, tmp: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    try {
      // "<pid> (<comm>) <state> <ppid> ...": zombies are gone, and the test's own sessions are not the run's.
      const [state, ppid] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()!.split(' ');
      if (state === 'Z' || state === 'X' || Number(ppid) === process.pid) continue;
    } catch {
      continue;
    }
    const cmd = readProc(pid, 'cmdline');
    let cwd = '';
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      // Exited, or not ours to read.
    }
    if (cmd.includes(workDir) || cwd === workDir || cwd.startsWith(`${workDir}/`) || readProc(pid, 'environ').includes(`PGPASSFILE=${tmp}/`)) {
      found.push(`${pid} ${cmd.trim()}${cwd ? ` (in ${cwd})` : ''}`);
    }
  }
  return found;
}
