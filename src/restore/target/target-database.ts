import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { PgError } from '../../pg/errors.js';
import { quoteIdent, quoteLiteral } from '../../pg/quote.js';
import { onEnv, queryEnv } from '../../pg/target-session.js';
import { redactedDsn, type Target } from './target.js';

type Env = Record<string, string | undefined>;

/**
 * Where queries about other databases run. As createdb does: `postgres`, or `template1` when
 * `postgres` is missing or refuses this user (CONNECT revoked).
 */
export async function onMaintenanceDb<T>(query: (database: string) => Promise<T>): Promise<T> {
  try {
    return await query('postgres');
  } catch (first) {
    if (!(first instanceof PgError)) throw first;
    return query('template1').catch((second: unknown) => {
      // Both refused: the first answer is the one that explains it (unreachable, bad password).
      throw second instanceof PgError ? first : second;
    });
  }
}

/** libpq's words for a server it could not reach at all (as opposed to one that refused the login or the database). */
const NETWORK =
  /connection refused|could not translate host name|timeout expired|no route to host|network is unreachable|connection timed out|no such file or directory\s+Is the server running/i;

/** svc could not reach the server at all: a network failure, exit 9 as for the service (cli-contract 5). */
export const isNetworkFailure = (err: PgError): boolean => NETWORK.test(err.reason);

function unreachable(target: Target, err: PgError): CliError {
  // A network failure is exit 9, as for the service (cli-contract 5); a refused login stays a client-tool failure.
  if (isNetworkFailure(err)) return new CliError('target_unreachable', `Cannot connect to the target ${redactedDsn(target)}: ${err.reason}`);
  return new LocalToolError(
    `Cannot connect to the target ${redactedDsn(target)}: ${err.reason || 'the connection failed'}`,
    'Check host, port, user and password (SVC_TARGET_DSN, PGPASSWORD or ~/.pgpass), and that the server accepts connections from here.',
  );
}

/** What the target server says about itself before anything is restored. */
export interface TargetFacts {
  /** new_database only: the database does not exist yet, so the restore creates it. */
  createDatabase: boolean;
  /** `server_version`, for the receipt. */
  serverVersion: string;
  /** From `server_version_num`. */
  serverMajor: number;
  /** `pg_available_extensions`: what the archive's CREATE EXTENSION entries may ask for (cli-contract 7.5). */
  extensions: string[];
  /** The target's role is a superuser: the backup's code would run with its rights (cli-contract 7.14). */
  superuser: boolean;
}

/** One round trip: the target's existence ($1), server version and available extensions. */
const FACTS_SQL = `SELECT json_build_object(
  'exists', (SELECT count(*) FROM pg_database WHERE datname = $1) > 0,
  'version', current_setting('server_version'),
  'versionNum', current_setting('server_version_num')::int,
  'extensions', (SELECT coalesce(json_agg(name ORDER BY name), '[]') FROM pg_available_extensions),
  'superuser', (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)) AS facts`;

interface RawFacts {
  exists: boolean;
  version: string;
  versionNum: number;
  extensions: string[];
  superuser: boolean | null;
}

/**
 * Connects to the target and says whether a new_database restore must create it. An in-place
 * target must accept a connection; a new-database target must not exist, or exist and be empty
 * (with `mustCreate`, not exist at all: a drill's scratch database is never one that was there).
 */
export async function inspectTarget(
  target: Target,
  mode: 'new_database' | 'in_place',
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
  mustCreate = false,
): Promise<TargetFacts> {
  const asUnreachable = (err: unknown): never => {
    throw err instanceof PgError ? unreachable(target, err) : err;
  };
  const query = async <R extends object>(sql: string, database: string, params?: unknown[]) =>
    (await queryEnv<R>({ env, database, scrubber, signal }, sql, params))[0]!;
  const factsIn = async (database: string) => {
    const raw = (await query<{ facts: RawFacts }>(FACTS_SQL, database, [target.database])).facts;
    return {
      exists: raw.exists,
      facts: { serverVersion: raw.version, serverMajor: Math.floor(raw.versionNum / 10_000), extensions: raw.extensions, superuser: raw.superuser === true },
    };
  };

  if (mode === 'in_place') return { createDatabase: false, ...(await factsIn(target.database).catch(asUnreachable)).facts };
  const { exists, facts } = await onMaintenanceDb(factsIn).catch(asUnreachable);
  // No such database yet: the restore creates it.
  if (!exists) return { createDatabase: true, ...facts };
  if (mustCreate) {
    throw new CliError('target_exists', `The database "${target.database}" already exists; svc restores only into a database it creates itself here.`, {
      hint: 'Drop it (it may be left from an earlier run), then run the command again.',
    });
  }
  // Anything user-made counts: relations, functions, types and schemas beyond the default public one.
  const { objects } = await query<{ objects: string }>(
    `WITH user_ns AS (
       SELECT oid, nspname FROM pg_namespace
       WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\\_%')
     SELECT (SELECT count(*) FROM pg_class c JOIN user_ns n ON n.oid = c.relnamespace)
          + (SELECT count(*) FROM pg_proc p JOIN user_ns n ON n.oid = p.pronamespace)
          + (SELECT count(*) FROM pg_type t JOIN user_ns n ON n.oid = t.typnamespace WHERE t.typtype IN ('e', 'd', 'r', 'm', 'c') AND t.typrelid = 0)
          + (SELECT count(*) FROM user_ns WHERE nspname <> 'public') AS objects`,
    target.database,
  ).catch(asUnreachable);
  if (objects !== '0') {
    throw new CliError(
      'target_exists',
      `The target database "${target.database}" already exists and is not empty; a new-database restore never writes into existing data.`,
    );
  }
  return { createDatabase: false, ...facts };
}

/**
 * CREATE DATABASE ... TEMPLATE template0, not pg_restore --create (which would use the archive's
 * name). `options`: the archive's encoding and locale clauses (database-options.ts), values quoted; `owner`: the role the restore then runs as (a drill's owner role, cli-contract 9.9);
 * `marker`: a drill's owner marker, made the database's comment (cli-contract 9.12).
 */
export async function createTargetDatabase(
  target: Target,
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
  opts: { options?: { sql: string }; owner?: string; marker?: string; tag?: string } = {},
): Promise<void> {
  try {
    const { options, owner, marker, tag } = opts;
    const name = quoteIdent(target.database);
    const create = `CREATE DATABASE ${name}${owner ? ` OWNER ${quoteIdent(owner)}` : ''} TEMPLATE template0${options?.sql ? ` ${options.sql}` : ''}`;
    // Two statements, two queries: CREATE DATABASE may not share a query message (an implicit transaction block) with another.
    await onMaintenanceDb((database) =>
      onEnv({ env, database, scrubber, signal, ...(tag === undefined ? {} : { applicationName: tag }) }, async (client) => {
        await client.query(create);
        if (marker) await client.query(`COMMENT ON DATABASE ${name} IS ${quoteLiteral(marker)}`);
      }),
    );
  } catch (err) {
    if (err instanceof PgError) {
      const hint =
        opts.options && /encoding|locale|collat|LC_/i.test(err.reason)
          ? "The target server refused the archive's encoding or locale: install the locale there, or restore into a server that has it."
          : 'The user in --target needs the CREATEDB privilege.';
      throw new LocalToolError(`Could not create the database "${target.database}": ${err.reason}`, hint);
    }
    throw err;
  }
}

/**
 * Drops a database this run created (a partial restore it must not leave behind). Runs after a
 * signal too, so it takes no abort signal: it is bounded by its own timeout instead.
 */
export async function dropCreatedDatabase(target: Target, env: Env, scrubber: SecretScrubber): Promise<void> {
  const signal = AbortSignal.timeout(30_000);
  const sql = `DROP DATABASE IF EXISTS ${quoteIdent(target.database)} WITH (FORCE)`;
  await onMaintenanceDb((database) => queryEnv({ env, database, scrubber, signal }, sql));
}

/** Ends the session of a CREATE DATABASE sent under the application_name $1. */
const TERMINATE_SQL = 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()';
/** Whether that session is still there, and whether the database $2 exists. */
const CREATION_SQL = `SELECT (SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid())::int AS running,
  EXISTS (SELECT 1 FROM pg_database WHERE datname = $2) AS exists`;

/**
 * Whether a CREATE DATABASE that was sent under `tag` and not seen to finish (a signal ended its
 * session) left the database behind. The server may still be running it: its session is ended first
 * and waited for, so the answer is the server's last word, not a guess (cli-contract 4, v5). Runs
 * after a signal, so it is bounded by its own timeout rather than the run's abort signal.
 */
export async function createdDatabaseExists(target: Target, env: Env, tag: string, scrubber: SecretScrubber): Promise<boolean> {
  const signal = AbortSignal.timeout(30_000);
  return onMaintenanceDb((database) =>
    onEnv({ env, database, scrubber, signal }, async (client) => {
      for (;;) {
        await client.query(TERMINATE_SQL, [tag]);
        const state = (await client.query<{ running: number; exists: boolean }>(CREATION_SQL, [tag, target.database])).rows[0]!;
        if (state.running === 0) return state.exists;
        await sleep(100, undefined, { signal });
      }
    }),
  );
}
