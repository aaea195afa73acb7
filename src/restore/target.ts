import { userInfo } from 'node:os';
import { parse } from 'pg-connection-string';
import { UsageError } from '../errors.js';

/** The parsed --target. `password` lives only in memory and in a 0600 PGPASSFILE while a child runs. */
export interface Target {
  host: string;
  port: number;
  user: string;
  database: string;
  password: string | undefined;
  /** libpq environment for the query parameters we pass on (PGSSLMODE, ...). */
  params: Record<string, string>;
}

/** URI query parameters handed to libpq through its environment variables. */
const PARAM_ENV: Record<string, string> = {
  sslmode: 'PGSSLMODE',
  sslrootcert: 'PGSSLROOTCERT',
  sslcert: 'PGSSLCERT',
  sslkey: 'PGSSLKEY',
  sslcrl: 'PGSSLCRL',
  connect_timeout: 'PGCONNECT_TIMEOUT',
  application_name: 'PGAPPNAME',
  target_session_attrs: 'PGTARGETSESSIONATTRS',
  options: 'PGOPTIONS',
};

/** System databases an in-place restore must never overwrite, and a new-database restore must never target. */
export const PROTECTED_DATABASES = new Set(['postgres', 'template0', 'template1']);

/**
 * Parses a postgres:// URI. Errors never echo the input: it may hold a password.
 * Defaults follow libpq: PGHOST/PGPORT/PGUSER from the environment, then localhost, 5432, the OS user.
 */
export function parseTarget(dsn: string, env: Record<string, string | undefined>): Target {
  if (!/^postgres(ql)?:\/\//i.test(dsn.trim())) {
    throw new UsageError(
      'The target must be a postgresql:// connection URI.',
      'Example: --target postgresql://app@db.example.com:5432/restored (put the password in SVC_TARGET_DSN, PGPASSWORD or ~/.pgpass).',
    );
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(dsn.trim(), { useLibpqCompat: true });
  } catch {
    throw new UsageError('The target connection URI could not be parsed (check its host, port and percent-encoding).');
  }
  const port = parsed.port ? Number(parsed.port) : Number(env.PGPORT ?? 5432);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError('The target port must be a number from 1 to 65535.');
  const user = parsed.user || env.PGUSER || userInfo().username;
  const database = parsed.database || '';
  if (!database) throw new UsageError('The target URI must name a database, e.g. postgresql://app@localhost:5432/restored');
  const params: Record<string, string> = {};
  for (const [key, envName] of Object.entries(PARAM_ENV)) {
    const value = parsed[key];
    if (typeof value === 'string' && value) params[envName] = value;
  }
  return {
    host: parsed.host || env.PGHOST || 'localhost',
    port,
    user,
    database,
    password: parsed.password || undefined,
    params,
  };
}

/** postgresql://<user>@<host>:<port>/<database>: no password, no query (cli-contract 7.1). */
export function redactedDsn(t: Pick<Target, 'user' | 'host' | 'port' | 'database'>): string {
  const host = t.host.startsWith('/') ? encodeURIComponent(t.host) : t.host.includes(':') ? `[${t.host}]` : t.host;
  return `postgresql://${encodeURIComponent(t.user)}@${host}:${t.port}/${encodeURIComponent(t.database)}`;
}
