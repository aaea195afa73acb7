import { userInfo } from 'node:os';
import pg from 'pg';
import { InterruptedError } from '../errors.js';
import type { Target } from '../restore/target/target.js';
import type { SecretScrubber } from '../secrets.js';
import { PgError, pgFailureText } from './errors.js';
import { sessionConfig, withSession, type SessionConfig } from './session.js';

type Env = Record<string, string | undefined>;

export interface TargetSessionOptions {
  /** The user's environment: libpq's PG* settings where the target's URI leaves them out (PGPASSWORD, PGSSLMODE, ...). */
  env: Env;
  database: string;
  scrubber: SecretScrubber;
  signal?: AbortSignal;
  /**
   * An administrative session inside a database whose objects svc does not trust (a restored one):
   * names resolve in pg_catalog only, so no function or operator an archive planted runs as this role.
   */
  catalogOnly?: boolean;
  /** The session's application_name (a tag another session can find it by in pg_stat_activity); `svc` by default. */
  applicationName?: string;
}

/** How libpq would reach `database` on `target`'s server: the password from the URI, else PGPASSWORD, else the password file. */
export function targetConfig(target: Target, opts: Pick<TargetSessionOptions, 'env' | 'database' | 'catalogOnly' | 'applicationName'>): SessionConfig {
  const base = sessionConfig(target, opts.env, target.user, target.password, opts.database);
  const options = [target.params.PGOPTIONS ?? opts.env.PGOPTIONS, opts.catalogOnly ? '-c search_path=pg_catalog' : ''].filter(Boolean).join(' ');
  return { ...base, bounds: null, ...(options ? { options } : {}), ...(opts.applicationName ? { applicationName: opts.applicationName } : {}) };
}

/** Once connected, a failure of the server or the connection (not of svc's own code, nor an error svc threw in `fn`). */
const isPgFailure = (err: unknown) =>
  err instanceof pg.DatabaseError || (err instanceof Error && ('syscall' in err || /^Connection terminated|^timeout expired/.test(err.message)));

/**
 * Runs `fn` in one session of svc's own on `target`'s server (node-postgres, in process: the password
 * is in no child's argv or environment). A refusal or a broken connection is a PgError in libpq's
 * words, scrubbed; a signal ends the session (the server cancels what ran) and is an InterruptedError.
 */
export async function onTarget<T>(target: Target, opts: TargetSessionOptions, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const signal = opts.signal ?? new AbortController().signal;
  let connected = false;
  let where = { host: target.host ?? '', port: target.port };
  try {
    const config = targetConfig(target, opts);
    where = config;
    return await withSession(config, signal, (client) => {
      connected = true;
      return fn(client);
    });
  } catch (err) {
    if (signal.aborted) throw new InterruptedError('Interrupted while svc was querying PostgreSQL.');
    if (err instanceof PgError || (connected && !isPgFailure(err))) throw err;
    throw new PgError(opts.scrubber.scrub(pgFailureText(err, where, connected)));
  }
}

/** One text (one statement with `params` as $1..., or several without) in a session of its own; its rows. */
export async function queryTarget<R extends pg.QueryResultRow = Record<string, unknown>>(
  target: Target,
  opts: TargetSessionOptions,
  sql: string,
  params?: unknown[],
): Promise<R[]> {
  return onTarget(target, opts, async (client) => (await client.query<R>(sql, params)).rows);
}

/**
 * The server a libpq child given `env` would reach (the PG* environment RunScope.pgEnv builds for
 * pg_restore): PGHOST, PGPORT, PGUSER; the password from PGPASSWORD or PGPASSFILE.
 */
export function envTarget(env: Env): Target {
  const port = Number(env.PGPORT || 5432);
  return { host: env.PGHOST || undefined, port, user: env.PGUSER || userInfo().username, database: env.PGDATABASE ?? '', password: undefined, params: {} };
}

/** onTarget on the server `opts.env` names, as a libpq child would reach it. */
export function onEnv<T>(opts: TargetSessionOptions, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return onTarget(envTarget(opts.env), opts, fn);
}

/** queryTarget on the server `opts.env` names. */
export function queryEnv<R extends pg.QueryResultRow = Record<string, unknown>>(opts: TargetSessionOptions, sql: string, params?: unknown[]): Promise<R[]> {
  return queryTarget<R>(envTarget(opts.env), opts, sql, params);
}
