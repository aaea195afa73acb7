import { readFileSync, statSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgError } from '../pg/errors.js';
import { quoteIdent } from '../pg/quote.js';
import { queryTarget } from '../pg/target-session.js';
import { OWNER_FILE, processRef, readOwner, stillRunning, writeOwner, type OwnerRecord } from '../restore/owner.js';
import type { RunScope } from '../restore/scope.js';
import { redactedDsn, type Target } from '../restore/target/target.js';
import { dropCreatedDatabase } from '../restore/target/target-database.js';
import type { SecretScrubber } from '../secrets.js';
import { parseDrillMarker } from './marker.js';
import { serverUser } from './os-user.js';
import { alive, findPostmaster, isPostmasterOf, signal, waitGone } from './postmaster.js';

type Env = Record<string, string | undefined>;

/**
 * Clean-up that survives SIGKILL (cli-contract 9.12). pg_ctl puts the postmaster in a session of its
 * own, so a drill killed with -9 (an OOM kill, `timeout -s KILL`, a CI runner's hard stop) leaves it
 * running, with a restored copy of production data, beside its artifact and PGPASSFILE. Each run
 * records what it owns (restore/owner.ts); a later drill removes what belongs to an svc process that
 * no longer exists, before it starts its own, and says what it removed.
 */

/** The kinds of directory svc makes, by name prefix: a scratch cluster, an artifact, a PGPASSFILE. */
const PREFIXES: Array<[string, OwnerRecord['kind']]> = [
  ['svc-drill-', 'cluster'],
  ['svc-restore-', 'artifact'],
  ['svc-pgpass-', 'pgpass'],
];
const STOP_WAIT_MS = 15_000;

/** A scratch cluster records its owner as soon as its directory exists, and its postmaster once it runs. */
export async function recordCluster(dir: string, postmasterPid?: number): Promise<void> {
  await writeOwner(dir, 'cluster', postmasterPid ? { ...processRef(postmasterPid), dataDir: join(dir, 'data') } : undefined);
}

/** A kept cluster (--keep) is the user's now: no later run may take it for an orphan. */
export async function releaseCluster(dir: string): Promise<void> {
  await rm(join(dir, OWNER_FILE), { force: true });
}

/**
 * Stops an orphaned cluster's postmaster: immediate shutdown (SIGQUIT), then SIGKILL. The pid is
 * trusted only where the process is that cluster's postgres: owner.json sits in a directory the
 * server's own user can write, and a pid may have been reused.
 */
async function stopOrphan(dir: string, owner: OwnerRecord): Promise<number | undefined> {
  const dataDir = join(dir, 'data');
  const recorded = owner.postmaster && owner.postmaster.dataDir === dataDir && stillRunning(owner.postmaster) ? owner.postmaster.pid : undefined;
  const pid = recorded ?? findPostmaster(dataDir);
  if (!pid || !alive(pid) || !isPostmasterOf(pid, dataDir)) return undefined;
  signal(pid, 'SIGQUIT');
  if (!(await waitGone(pid, STOP_WAIT_MS))) {
    signal(pid, 'SIGKILL');
    await waitGone(pid, STOP_WAIT_MS);
  }
  return pid;
}

/** A directory of ours: a real directory (no link), owned by svc's user, or as root by the scratch server's. */
async function ours(path: string, kind: OwnerRecord['kind']): Promise<boolean> {
  const st = await lstat(path).catch(() => undefined);
  if (!st?.isDirectory()) return false;
  const uid = process.getuid?.();
  return uid === undefined || st.uid === uid || (kind === 'cluster' && st.uid === serverUser()?.uid);
}

/** Removes the clusters, artifacts and password files of dead svc processes found in `dirs`. */
export async function reapDirectories(dirs: string[], say: (text: string) => void): Promise<void> {
  const host = hostname();
  for (const parent of new Set(dirs)) {
    for (const name of await readdir(parent).catch(() => [] as string[])) {
      const kind = PREFIXES.find(([prefix]) => name.startsWith(prefix))?.[1];
      const path = join(parent, name);
      if (!kind || !(await ours(path, kind))) continue;
      // No record (a run that has not written it yet, or one that kept its files): never an orphan.
      const owner = readOwner(path);
      if (!owner || owner.kind !== kind || owner.host !== host || stillRunning(owner.svc)) continue;
      const stopped = kind === 'cluster' ? await stopOrphan(path, owner) : undefined;
      await rm(path, { recursive: true, force: true }).catch(() => undefined);
      const gone = statSync(path, { throwIfNoEntry: false }) === undefined;
      const whose = `an earlier run whose svc process (pid ${owner.svc.pid}) no longer exists`;
      const what =
        kind === 'cluster'
          ? `the scratch cluster of ${whose}${stopped ? `: stopped its postmaster (pid ${stopped}) and removed ${path}` : `: removed ${path}`}`
          : kind === 'artifact'
            ? `the downloaded artifact of ${whose}: ${path}`
            : `the password file of ${whose}: ${path}`;
      say(gone ? `Removed ${what}.` : `Could not remove ${what.replace(/: removed /, ': ')}; remove it yourself.`);
    }
  }
}

/** A marker's owner is gone: on this host, and no process with its pid has run since the marker was written. */
function markerOrphaned(comment: string | null): boolean {
  const marker = parseDrillMarker(comment);
  if (!marker || marker.host !== hostname()) return false;
  if (!stillRunning({ pid: marker.pid, start: null })) return true;
  // The pid runs: it is the marker's owner unless it started after the marker was written (a reused pid).
  const started = processStartedAt(marker.pid);
  return started !== undefined && started > Date.parse(marker.startedAt) + 2_000;
}

/** When a process started, in ms since the epoch: /proc/stat's boot time plus /proc/<pid>/stat's start (clock ticks, 100 a second on Linux). */
function processStartedAt(pid: number): number | undefined {
  try {
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    const ticks = Number(processRef(pid).start);
    return Number.isFinite(btime) && Number.isFinite(ticks) ? btime * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

// A database's marker is its own comment, or (where the archive's comment replaced it: cli-contract
// 7.11 applies COMMENT ON DATABASE) its svc_drill_owner_* role's.
const ORPHANS_SQL = String.raw`SELECT json_build_object(
  'databases', (SELECT coalesce(json_agg(json_build_object('name', d.datname, 'comment', shobj_description(d.oid, 'pg_database'),
                  'ownerComment', CASE WHEN o.rolname LIKE 'svc\_drill\_%' THEN shobj_description(o.oid, 'pg_authid') END)), '[]')
                FROM pg_database d JOIN pg_roles o ON o.oid = d.datdba WHERE d.datname LIKE 'svc\_drill\_%'),
  'roles', (SELECT coalesce(json_agg(json_build_object('name', rolname, 'comment', shobj_description(oid, 'pg_authid'))), '[]')
            FROM pg_roles r WHERE rolname LIKE 'svc\_drill\_%' AND NOT EXISTS (SELECT 1 FROM pg_database d WHERE d.datdba = r.oid))) AS found`;

/** The marker that speaks for a scratch database: its comment's, else its owner role's. */
const databaseMarker = (d: { comment: string | null; ownerComment?: string | null }) => (parseDrillMarker(d.comment) ? d.comment : (d.ownerComment ?? null));

interface ServerDeps {
  env: Env;
  scope: RunScope;
  scrubber: SecretScrubber;
  signal: AbortSignal;
}

/**
 * On an operator's scratch server: drops the svc_drill_* databases, then roles, whose marker comment
 * names an svc process of this host that no longer exists. A server that cannot be asked is left to
 * the scratch check that follows, which says why.
 */
export async function reapScratchServer(server: Target, deps: ServerDeps, say: (text: string) => void): Promise<void> {
  const pgEnv = await deps.scope.pgEnv(server, deps.env);
  type Found = {
    databases: Array<{ name: string; comment: string | null; ownerComment?: string | null }>;
    roles: Array<{ name: string; comment: string | null }>;
  };
  const opts = { env: deps.env, database: server.database, scrubber: deps.scrubber };
  const look = async () => (await queryTarget<{ found: Found }>(server, { ...opts, signal: deps.signal }, ORPHANS_SQL))[0]!.found;
  let found: Found;
  try {
    found = await look();
  } catch {
    // Unreachable or refused: the scratch server's own check, which follows, says why.
    return;
  }
  const where = redactedDsn(server);
  for (const db of found.databases.filter((d) => markerOrphaned(databaseMarker(d)))) {
    const owner = parseDrillMarker(databaseMarker(db))!;
    try {
      await dropCreatedDatabase({ ...server, database: db.name }, pgEnv, deps.scrubber);
      say(`Dropped ${db.name} from ${where}: the scratch database of an earlier drill whose svc process (pid ${owner.pid}) no longer exists.`);
    } catch (err) {
      say(
        `Could not drop ${db.name}, left on ${where} by an earlier drill (svc pid ${owner.pid}): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      );
    }
  }
  // Roles after the databases: an orphan database's owner role (svc_drill_owner_*) is free to go only now.
  try {
    found = await look();
  } catch {
    return;
  }
  for (const role of found.roles.filter((r) => markerOrphaned(r.comment))) {
    const owner = parseDrillMarker(role.comment)!;
    try {
      await queryTarget(server, { ...opts, signal: AbortSignal.timeout(30_000) }, `DROP ROLE IF EXISTS ${quoteIdent(role.name)}`);
      say(`Dropped the role ${role.name} from ${where}: made by an earlier drill whose svc process (pid ${owner.pid}) no longer exists.`);
    } catch (err) {
      say(
        `Could not drop the role ${role.name}, left on ${where} by an earlier drill (svc pid ${owner.pid}): ${err instanceof PgError ? err.reason : String(err)}`,
      );
    }
  }
}

/** Before a drill starts its own: the orphans in its work dir and TMPDIR, and with --scratch <dsn> on that server. */
export async function reapOrphans(
  opts: { workDir: string; scratch: { kind: 'auto' } | { kind: 'dsn'; server: Target } },
  deps: ServerDeps,
  say: (text: string) => void,
): Promise<void> {
  await reapDirectories([opts.workDir, tmpdir()], say);
  if (opts.scratch.kind === 'dsn') await reapScratchServer(opts.scratch.server, deps, say);
}
