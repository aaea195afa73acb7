import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { PgError } from '../../pg/errors.js';
import { psql } from '../../pg/psql.js';
import { quoteIdent, quoteLiteral } from '../../pg/quote.js';
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

/** psql could not reach the server at all: a network failure, exit 9 as for the service (cli-contract 5). */
export const isNetworkFailure = (err: PgError): boolean => NETWORK.test(err.reason);

function unreachable(target: Target, err: PgError): CliError {
  // A network failure is exit 9, as for the service (cli-contract 5); a refused login stays a client-tool failure.
  if (isNetworkFailure(err)) return new CliError('target_unreachable', `Cannot connect to the target ${redactedDsn(target)}: ${err.reason}`);
  return new LocalToolError(
    `Cannot connect to the target ${redactedDsn(target)}: ${err.reason || 'psql failed'}`,
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

/** One round trip: the target's existence, server version and available extensions, as JSON. */
const factsSql = (target: Target) => `SELECT json_build_object(
  'exists', (SELECT count(*) FROM pg_database WHERE datname = ${quoteLiteral(target.database)}) > 0,
  'version', current_setting('server_version'),
  'versionNum', current_setting('server_version_num')::int,
  'extensions', (SELECT coalesce(json_agg(name ORDER BY name), '[]') FROM pg_available_extensions),
  'superuser', (SELECT rolsuper FROM pg_roles WHERE rolname = current_user));`;

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
  const query = (sql: string, database: string) => psql(sql, { env, database, scrubber, signal });
  const asUnreachable = (err: unknown): never => {
    throw err instanceof PgError ? unreachable(target, err) : err;
  };
  const run = (sql: string, database: string) => query(sql, database).catch(asUnreachable);
  const read = (text: string) => {
    const raw = JSON.parse(text) as { exists: boolean; version: string; versionNum: number; extensions: string[]; superuser: boolean | null };
    return {
      exists: raw.exists,
      facts: { serverVersion: raw.version, serverMajor: Math.floor(raw.versionNum / 10_000), extensions: raw.extensions, superuser: raw.superuser === true },
    };
  };

  if (mode === 'in_place') return { createDatabase: false, ...read(await run(factsSql(target), target.database)).facts };
  const { exists, facts } = read(await onMaintenanceDb((database) => query(factsSql(target), database)).catch(asUnreachable));
  // No such database yet: the restore creates it.
  if (!exists) return { createDatabase: true, ...facts };
  if (mustCreate) {
    throw new CliError('target_exists', `The database "${target.database}" already exists; svc restores only into a database it creates itself here.`, {
      hint: 'Drop it (it may be left from an earlier run), then run the command again.',
    });
  }
  // Anything user-made counts: relations, functions, types and schemas beyond the default public one.
  const objects = await run(
    `WITH user_ns AS (
       SELECT oid, nspname FROM pg_namespace
       WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\\_%')
     SELECT (SELECT count(*) FROM pg_class c JOIN user_ns n ON n.oid = c.relnamespace)
          + (SELECT count(*) FROM pg_proc p JOIN user_ns n ON n.oid = p.pronamespace)
          + (SELECT count(*) FROM pg_type t JOIN user_ns n ON n.oid = t.typnamespace WHERE t.typtype IN ('e', 'd', 'r', 'm', 'c') AND t.typrelid = 0)
          + (SELECT count(*) FROM user_ns WHERE nspname <> 'public');`,
    target.database,
  );
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
    const sql = `CREATE DATABASE ${name}${owner ? ` OWNER ${quoteIdent(owner)}` : ''} TEMPLATE template0${options?.sql ? ` ${options.sql}` : ''};${marker ? ` COMMENT ON DATABASE ${name} IS ${quoteLiteral(marker)};` : ''}`;
    const createEnv = tag === undefined ? env : { ...env, PGAPPNAME: tag };
    await onMaintenanceDb((database) => psql(sql, { env: createEnv, database, scrubber, signal }));
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
  const timeout = AbortSignal.timeout(30_000);
  const sql = `DROP DATABASE IF EXISTS ${quoteIdent(target.database)} WITH (FORCE);`;
  await onMaintenanceDb((database) => psql(sql, { env, database, scrubber, signal: timeout }));
}

/** The session of a CREATE DATABASE sent under `tag` (its application_name), and whether the database exists. */
const creationSql = (
  target: Target,
  tag: string,
) => `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${quoteLiteral(tag)} AND pid <> pg_backend_pid();
SELECT json_build_object(
  'running', (SELECT count(*) FROM pg_stat_activity WHERE application_name = ${quoteLiteral(tag)} AND pid <> pg_backend_pid()),
  'exists', EXISTS (SELECT 1 FROM pg_database WHERE datname = ${quoteLiteral(target.database)}));`;

/**
 * Whether a CREATE DATABASE that was sent under `tag` and not seen to finish (a signal stopped its
 * psql) left the database behind. The server may still be running it: its session is ended first
 * and waited for, so the answer is the server's last word, not a guess (cli-contract 4, v5). Runs
 * after a signal, so it is bounded by its own timeout rather than the run's abort signal.
 */
export async function createdDatabaseExists(target: Target, env: Env, tag: string, scrubber: SecretScrubber): Promise<boolean> {
  const signal = AbortSignal.timeout(30_000);
  const sql = creationSql(target, tag);
  for (;;) {
    const answer = await onMaintenanceDb((database) => psql(sql, { env, database, scrubber, signal }));
    const state = JSON.parse(answer.split('\n').at(-1) ?? '{}') as { running: number; exists: boolean };
    if (state.running === 0) return state.exists;
    await sleep(100, undefined, { signal });
  }
}
