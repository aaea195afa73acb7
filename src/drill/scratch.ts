import { randomBytes } from 'node:crypto';
import { CliError, LocalToolError } from '../errors.js';
import { shellCommand } from '../output/shell-quote.js';
import { PgError } from '../pg/errors.js';
import { queryTarget } from '../pg/target-session.js';
import type { RunScope } from '../restore/scope.js';
import { redactedDsn, type Target } from '../restore/target/target.js';
import { dropCreatedDatabase, isNetworkFailure } from '../restore/target/target-database.js';
import type { RestoreRoles } from '../restore/load/unprivileged.js';
import type { SecretScrubber } from '../secrets.js';
import { checkAccess } from './check-role.js';
import { startScratchCluster, type ScratchCluster } from './cluster.js';
import type { SessionConfig } from '../pg/session.js';
import type { Isolation } from './isolation.js';
import { DrillRoles } from './owner-role.js';
import type { ServerBinaries } from './server-binaries.js';

type Env = Record<string, string | undefined>;

/** Where a drill restores (cli-contract 9, --scratch): a throwaway local cluster, or an operator's server. */
export interface Scratch {
  kind: 'auto' | 'dsn';
  serverVersion: string;
  /** A connection to one of this run's scratch databases. */
  target(database: string): Target;
  /** What --keep prints for a kept scratch database. */
  howToReach(database: string): string[];
  /** Where a SQL check in `database` connects: a fresh connection as the run's read-only check role (check-role.ts). */
  checkSession(database: string): Promise<SessionConfig>;
  /** What the run says once of the rights it restores with (--scratch <dsn>). */
  privilegeNote?: string;
  /** Drops a scratch database of this run; never throws (a failed drop is said on stderr by the caller). */
  drop(database: string): Promise<string | undefined>;
  /**
   * A new owner role for one scratch database, and the placeholder roles (cli-contract 9.9);
   * undefined where the server's role may not create roles: the drill restores as that role.
   */
  roles?: () => Promise<RestoreRoles>;
  /** Stops the cluster and removes its files (auto), or drops the roles this run created (dsn), unless kept. */
  dispose(keep: boolean): Promise<void>;
}

/** `svc_drill_<databaseId, lower-case, [a-z0-9_] only, cut to 30>_<8 hex>`: never a name from input, never one that exists. */
export function scratchName(databaseId: string): string {
  const base = databaseId
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 30);
  return `svc_drill_${base}_${randomBytes(4).toString('hex')}`;
}

interface Deps {
  env: Env;
  scope: RunScope;
  scrubber: SecretScrubber;
  signal: AbortSignal;
  /** A line on stderr, said once. */
  note: (text: string) => void;
  /** Told once the cluster's data directory is being made (cluster.ts). */
  copying?: () => void;
}

function dropper(base: Target, pgEnv: Env, deps: Deps): (database: string) => Promise<string | undefined> {
  return async (database) => {
    try {
      await dropCreatedDatabase({ ...base, database }, pgEnv, deps.scrubber);
      return undefined;
    } catch (err) {
      return err instanceof Error ? err.message.split('\n')[0] : String(err);
    }
  };
}

/** A throwaway local cluster, started once per run under the work dir. */
export async function autoScratch(binaries: ServerBinaries, isolation: Isolation, workDir: string, deps: Deps): Promise<Scratch> {
  const cluster: ScratchCluster = await startScratchCluster(binaries, workDir, deps.env, deps.signal, isolation, deps.copying);
  try {
    const pgEnv = await deps.scope.pgEnv(cluster.target('postgres'), deps.env);
    // Its own cluster (on loopback, or its socket) has no TLS: not even tried, whatever PGSSLMODE the environment holds.
    const admin = cluster.target('postgres');
    const roles = new DrillRoles({ ...admin, params: { ...admin.params, PGSSLMODE: 'disable' } }, deps.env, deps.scrubber, deps.signal);
    const checks = checkAccess({
      admin: { ...admin, params: { ...admin.params, PGSSLMODE: 'disable' } },
      env: deps.env,
      signal: deps.signal,
      note: deps.note,
      where: 'the scratch cluster',
    });
    return {
      kind: 'auto',
      serverVersion: binaries.version,
      target: (database) => cluster.target(database),
      howToReach: (database) => cluster.howToReach(database),
      checkSession: (database) => checks.session(database),
      drop: dropper(cluster.target('postgres'), pgEnv, deps),
      // The cluster's superuser only sets up: each database is restored as an owner role of its own.
      roles: () => roles.forDatabase(),
      // The roles go with the cluster; a kept cluster keeps no role of this run.
      dispose: async (keep) => {
        await checks.dispose(keep);
        await cluster.stop({ keep });
      },
    };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

/**
 * An operator's scratch server (--scratch <dsn>): reachable with the given credentials, and the role
 * may create databases; svc creates and drops only its own svc_drill_* databases there.
 */
export async function dsnScratch(server: Target, deps: Deps): Promise<Scratch> {
  const pgEnv = await deps.scope.pgEnv(server, deps.env);
  let facts: { version: string; createdb: boolean; createrole: boolean; superuser: boolean };
  try {
    const sql = `SELECT json_build_object('version', current_setting('server_version'),
      'createdb', (SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user),
      'createrole', (SELECT rolcreaterole OR rolsuper FROM pg_roles WHERE rolname = current_user),
      'superuser', (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)) AS facts`;
    const opts = { env: deps.env, database: server.database, scrubber: deps.scrubber, signal: deps.signal };
    facts = (await queryTarget<{ facts: typeof facts }>(server, opts, sql))[0]!.facts;
  } catch (err) {
    if (!(err instanceof PgError)) throw err;
    const message = `Cannot connect to the scratch server ${redactedDsn(server)}: ${err.reason}`;
    const hint = 'Check --scratch: host, port, user and password (or PGPASSWORD / ~/.pgpass), and that the server accepts connections from here.';
    throw isNetworkFailure(err) ? new CliError('target_unreachable', message, { hint }) : new LocalToolError(message, hint);
  }
  if (!facts.createdb) {
    throw new LocalToolError(
      `The role "${server.user}" may not create databases on ${redactedDsn(server)}: a drill creates its own svc_drill_* databases there.`,
      `Grant it: ALTER ROLE "${server.user}" CREATEDB; or use --scratch auto.`,
    );
  }
  const checks = checkAccess({ admin: server, env: deps.env, signal: deps.signal, note: deps.note, where: redactedDsn(server) });
  const roles = facts.createrole ? new DrillRoles(server, deps.env, deps.scrubber, deps.signal, !facts.superuser) : undefined;
  return {
    kind: 'dsn',
    serverVersion: facts.version,
    target: (database) => ({ ...server, database }),
    howToReach: (database) => [shellCommand(['psql', redactedDsn({ ...server, database })])],
    checkSession: (database) => checks.session(database),
    drop: dropper(server, pgEnv, deps),
    ...(roles ? { roles: () => roles.forDatabase() } : {}),
    privilegeNote: scratchPrivilegeNote(server, facts),
    dispose: async (keep) => {
      await checks.dispose(true);
      if (keep || !roles) return;
      for (const failed of await roles.drop()) deps.note(`warning: could not drop the drill's role ${failed}`);
    },
  };
}

/** With --scratch <dsn>: who the restores run as, and where that is a superuser, the warning of cli-contract 7.14. */
function scratchPrivilegeNote(server: Target, facts: { createrole: boolean; superuser: boolean }): string {
  if (facts.createrole)
    return `Scratch server: each database is restored as a throwaway owner role (no superuser, no CREATEDB, no CREATEROLE) that "${server.user}" creates and drops again.`;
  return facts.superuser
    ? `warning: "${server.user}" may not create roles here, so the drill restores as "${server.user}", a superuser: code in the backup will run with superuser rights on ${redactedDsn(server)}.`
    : `"${server.user}" may not create roles here, so the drill restores as "${server.user}" (not a superuser): the backup's code runs with its rights, and roles the archive names must exist on the server.`;
}
