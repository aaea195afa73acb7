import { userInfo } from 'node:os';
import { UsageError } from '../../errors.js';
import { isLibpqUri, keywordForMessage, parseLibpqUri } from './libpq-uri.js';

/** The parsed --target. `password` lives only in memory and, while a child runs, in its 0600 PGPASSFILE or its environment. */
export interface Target {
  /** Host name, IP address or Unix-socket directory; undefined is libpq's default socket directory. */
  host: string | undefined;
  port: number;
  user: string;
  database: string;
  password: string | undefined;
  /**
   * The URI's own settings as the PG* variables every child gets (PGHOST, PGSSLMODE, ...), decoded,
   * empty values included (libpq treats an empty setting as given). Never the password or database.
   */
  params: Record<string, string>;
}

/**
 * Every keyword of PostgreSQL 15's libpq that has an environment variable (PQconninfoOptions), but
 * dbname and password, which svc passes itself. Children get connection settings only through their
 * environment: argv is readable by every local user.
 */
const PARAM_ENV: Readonly<Record<string, string>> = {
  host: 'PGHOST',
  hostaddr: 'PGHOSTADDR',
  port: 'PGPORT',
  user: 'PGUSER',
  passfile: 'PGPASSFILE',
  channel_binding: 'PGCHANNELBINDING',
  connect_timeout: 'PGCONNECT_TIMEOUT',
  client_encoding: 'PGCLIENTENCODING',
  options: 'PGOPTIONS',
  application_name: 'PGAPPNAME',
  sslmode: 'PGSSLMODE', // requiressl and ssl=true arrive here as sslmode, as libpq translates them
  sslcompression: 'PGSSLCOMPRESSION',
  sslcert: 'PGSSLCERT',
  sslkey: 'PGSSLKEY',
  sslrootcert: 'PGSSLROOTCERT',
  sslcrl: 'PGSSLCRL',
  sslcrldir: 'PGSSLCRLDIR',
  sslsni: 'PGSSLSNI',
  requirepeer: 'PGREQUIREPEER',
  ssl_min_protocol_version: 'PGSSLMINPROTOCOLVERSION',
  ssl_max_protocol_version: 'PGSSLMAXPROTOCOLVERSION',
  gssencmode: 'PGGSSENCMODE',
  krbsrvname: 'PGKRBSRVNAME',
  gsslib: 'PGGSSLIB',
  target_session_attrs: 'PGTARGETSESSIONATTRS',
};

/** libpq 15 keywords with no environment variable: svc could pass them on only in argv, so it refuses them. */
const NO_ENV_VAR = new Set([
  'fallback_application_name',
  'keepalives',
  'keepalives_idle',
  'keepalives_interval',
  'keepalives_count',
  'tcp_user_timeout',
  'sslpassword',
  'replication',
]);

/** Keywords of libpq 16 and 17: a libpq 15 child ignores their PG* variables, which would drop them silently. */
const NEWER_LIBPQ = new Set(['require_auth', 'sslcertmode', 'load_balance_hosts', 'gssdelegation', 'sslnegotiation']);

/** System databases an in-place restore must never overwrite, and a new-database restore must never target. */
export const PROTECTED_DATABASES = new Set(['postgres', 'template0', 'template1']);

const DEFAULT_PORT = 5432;

function refuseParameter(keyword: string, password: string | undefined): never {
  const name = keywordForMessage(keyword, password);
  const quoted = name === undefined ? 'a query parameter' : `the parameter "${name}"`;
  const hint = `Remove ${quoted} from the target URI: svc refuses a setting it cannot pass on rather than restore without it.`;
  if (keyword === 'service') {
    throw new UsageError(
      'The target URI sets the parameter "service", which svc refuses: it must know the host, port and database it restores into, and a service file read by pg_restore would override the URI\'s own settings.',
      'Write the settings of the service into the URI instead.',
    );
  }
  if (NO_ENV_VAR.has(keyword)) {
    throw new UsageError(
      `The target URI sets ${quoted}, which libpq reads from no environment variable; svc hands connection settings to psql and pg_restore only through their environment.`,
      hint,
    );
  }
  if (NEWER_LIBPQ.has(keyword)) {
    throw new UsageError(
      `The target URI sets ${quoted}, which needs libpq 16 or later; svc passes settings as libpq 15 reads them, and an older client would ignore it.`,
      hint,
    );
  }
  throw new UsageError(`The target URI sets ${quoted}, which is not a libpq connection parameter (psql would refuse the URI too).`, hint);
}

/** One server: with a host list each connection of pg_restore could reach a different one. */
function single(value: string, what: string): string {
  if (value.includes(',')) {
    throw new UsageError(`The target ${what} is a comma-separated list; svc restores into exactly one server.`, 'Name one host and port in the target URI.');
  }
  return value;
}

function portNumber(value: string, fromEnv: boolean): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw new UsageError(
      'The target port must be a number from 1 to 65535.',
      fromEnv ? 'The URI names no port, so it comes from PGPORT: fix or unset PGPORT.' : undefined,
    );
  }
  return port;
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    throw new UsageError('Could not look up the local user name that libpq would connect as.', 'Name the user in the target URI: postgresql://app@host/dbname');
  }
}

/**
 * Reads a postgresql:// URI as libpq does (see libpq-uri.ts). Errors never echo the input: it may
 * hold a password. What the URI leaves out comes from the environment as libpq takes it (PGHOST,
 * PGPORT, PGUSER), then libpq's defaults: the default Unix socket, port 5432, the OS user. The
 * database alone must be in the URI: svc does not restore into one named by PGDATABASE or the user.
 */
export function parseTarget(dsn: string, env: Record<string, string | undefined>): Target {
  if (!isLibpqUri(dsn)) {
    throw new UsageError(
      'The target must be a postgresql:// connection URI.',
      'Example: --target postgresql://app@db.example.com:5432/restored (put the password in SVC_TARGET_DSN, PGPASSWORD or ~/.pgpass).',
    );
  }
  const settings = parseLibpqUri(dsn);
  const password = settings.get('password') || undefined; // libpq treats an empty password as none
  const params: Record<string, string> = {};
  for (const [keyword, value] of settings) {
    if (keyword === 'dbname' || keyword === 'password') continue;
    const envName = PARAM_ENV[keyword];
    if (envName === undefined) refuseParameter(keyword, password);
    params[envName] = value;
  }

  const database = settings.get('dbname') ?? '';
  if (!database) throw new UsageError('The target URI must name a database, e.g. postgresql://app@localhost:5432/restored');

  // A setting the URI gives, even an empty one, hides the environment variable from libpq.
  const given = (keyword: string, envName: string) => (settings.has(keyword) ? settings.get(keyword) : env[envName]);
  const hostaddr = params.PGHOSTADDR ? single(params.PGHOSTADDR, 'hostaddr') : undefined;
  const host = single(given('host', 'PGHOST') ?? '', settings.has('host') ? 'host' : 'host in PGHOST') || hostaddr || undefined;
  const portText = single(given('port', 'PGPORT') ?? '', settings.has('port') ? 'port' : 'port in PGPORT');
  const port = portText ? portNumber(portText, !settings.has('port')) : DEFAULT_PORT;
  const user = given('user', 'PGUSER') || osUser();
  return { host, port, user, database, password, params };
}

/**
 * postgresql://<user>@<host>:<port>/<database>: no password, no query (cli-contract 7.1), and itself
 * a libpq URI naming the same server. A socket directory is the percent-encoded host, as libpq reads
 * it (postgresql://app@%2Fvar%2Frun%2Fpostgresql:5432/db). libpq's default socket directory is
 * compiled into the client, so svc cannot name it: it shows as the empty host, libpq's own spelling
 * of "the default" (postgresql://app@:5432/db), never as localhost, which would mean TCP.
 */
export function redactedDsn(t: Pick<Target, 'user' | 'host' | 'port' | 'database'>): string {
  let host = t.host === undefined ? '' : encodeURIComponent(t.host);
  if (t.host?.includes(':') && !t.host.startsWith('/')) host = `[${host.replace(/%3A/gi, ':')}]`;
  return `postgresql://${encodeURIComponent(t.user)}@${host}:${t.port}/${encodeURIComponent(t.database)}`;
}
