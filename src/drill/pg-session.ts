import { EventEmitter } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { Target } from '../restore/target/target.js';
import { BoundedMessages, type MessageBounds } from './bounded-messages.js';

type Env = Record<string, string | undefined>;

/**
 * A connection of the drill's own (node-postgres, in process): its password is handed over in
 * memory only, never through an environment, argv or a file.
 */
export interface SessionConfig {
  host: string;
  port: number;
  user: string;
  database: string;
  password: string | undefined;
  ssl: false | ConnectionOptions;
  /** sslmode=prefer: without TLS where the server offers none, as libpq does. */
  plainFallback: boolean;
  /** Settings for the session (the startup packet's options), e.g. `-c statement_timeout=60s`. */
  options?: string;
}

/** A value keeps this many bytes, enough for 200 characters and one more (4 bytes each at most). */
const BOUNDS: MessageBounds = { valueBytes: 804, textBytes: 2048, otherBytes: 1 << 20 };
const CONNECT_TIMEOUT_MS = 10_000;

/** The libpq default socket directory where its socket for `port` exists (Debian's, then upstream's). */
function defaultHost(port: number): string {
  for (const dir of ['/var/run/postgresql', '/tmp']) if (existsSync(join(dir, `.s.PGSQL.${port}`))) return dir;
  return 'localhost';
}

function readIf(path: string | undefined): string | undefined {
  return path && existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/**
 * libpq's sslmode as node-postgres options: the target's own settings, else the environment's
 * (where libpq would look too), else libpq's default, prefer.
 */
function tlsOf(target: Target, env: Env, host: string): Pick<SessionConfig, 'ssl' | 'plainFallback'> {
  const setting = (name: string) => target.params[name] ?? env[name];
  const mode = setting('PGSSLMODE') || 'prefer';
  if (host.startsWith('/') || mode === 'disable' || mode === 'allow') return { ssl: false, plainFallback: false };
  const dotDir = join(homedir(), '.postgresql');
  const ca = readIf(setting('PGSSLROOTCERT') ?? join(dotDir, 'root.crt'));
  const cert = readIf(setting('PGSSLCERT') ?? join(dotDir, 'postgresql.crt'));
  const key = cert ? readIf(setting('PGSSLKEY') ?? join(dotDir, 'postgresql.key')) : undefined;
  const ssl: ConnectionOptions = { ...(cert && key ? { cert, key } : {}) };
  if (mode === 'verify-full') Object.assign(ssl, { ca, rejectUnauthorized: true });
  else if (mode === 'verify-ca' || (mode === 'require' && ca)) Object.assign(ssl, { ca, rejectUnauthorized: true, checkServerIdentity: () => undefined });
  else Object.assign(ssl, { rejectUnauthorized: false });
  return { ssl, plainFallback: mode === 'prefer' };
}

/** How to reach `database` on the server of `target` as `user` (with `password`, else PGPASSWORD, else ~/.pgpass). */
export function sessionConfig(target: Target, env: Env, user: string, password: string | undefined, database: string): SessionConfig {
  const host = target.host ?? env.PGHOST ?? defaultHost(target.port);
  return { host, port: target.port, user, database, password: password ?? env.PGPASSWORD, ...tlsOf(target, env, host) };
}

/**
 * pg's connection, with every message from the server passed through BoundedMessages before
 * pg-protocol's parser sees it. attachListeners is where pg hands the socket (or, after the TLS
 * upgrade, the TLS stream) to that parser.
 */
class BoundedConnection extends pg.Connection {
  attachListeners(stream: NodeJS.ReadableStream & { destroy(err?: Error): void }): void {
    const relay = new EventEmitter();
    const bounded = new BoundedMessages(BOUNDS, (chunk) => relay.emit('data', chunk));
    stream.on('data', (chunk: Buffer) => {
      try {
        bounded.push(chunk);
      } catch (err) {
        stream.destroy(err as Error);
      }
    });
    stream.on('end', () => relay.emit('end'));
    (pg.Connection.prototype as unknown as { attachListeners(s: EventEmitter): void }).attachListeners.call(this, relay);
  }
}

/** Every value as the server's text (a value cut short must not reach a JSON or date parser), booleans as words. */
const asText = {
  getTypeParser: (oid: number) => (oid === 16 ? (v: string) => (v === 't' ? 'true' : 'false') : (v: string) => v),
} as unknown as pg.CustomTypesConfig;

async function connect(config: SessionConfig, ssl: false | ConnectionOptions): Promise<pg.Client> {
  const { plainFallback: _, options, ...rest } = config;
  const client = new pg.Client({
    ...rest,
    ssl,
    connection: new BoundedConnection({ ssl } as pg.ConnectionConfig),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'svc restore drill',
    ...(options ? { options } : {}),
  } as pg.ClientConfig);
  // A connection that breaks is reported to the query that is running; pg emits it here too.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** A connected client; under sslmode=prefer, without TLS where the server has none. */
export async function openSession(config: SessionConfig): Promise<pg.Client> {
  try {
    return await connect(config, config.ssl);
  } catch (err) {
    if (config.plainFallback && /does not support SSL/.test((err as Error).message)) return connect(config, false);
    throw err;
  }
}

/**
 * Asks the server to cancel what `client`'s backend runs (a CancelRequest on a connection of its
 * own): a backend whose client went away would otherwise run on until its statement timeout.
 */
function cancelOnServer(config: SessionConfig, client: pg.Client): void {
  const { processID, secretKey } = client as unknown as { processID: number | null; secretKey: number | null };
  if (processID === null || secretKey === null) return;
  const request = Buffer.alloc(16);
  request.writeInt32BE(16, 0);
  request.writeInt32BE(80877102, 4);
  request.writeInt32BE(processID, 8);
  request.writeInt32BE(secretKey, 12);
  const socket = config.host.startsWith('/') ? createConnection(join(config.host, `.s.PGSQL.${config.port}`)) : createConnection(config.port, config.host);
  socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy());
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.end(request));
}

/** Runs `fn` with a fresh session, closed after it whatever happens; a signal cancels what runs and breaks the connection. */
export async function withSession<T>(config: SessionConfig, signal: AbortSignal, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await openSession(config);
  const abort = () => {
    cancelOnServer(config, client);
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  };
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await fn(client);
  } finally {
    signal.removeEventListener('abort', abort);
    await client.end().catch(() => undefined);
  }
}

export interface FirstRows {
  columns: string[];
  rows: Array<Array<string | null>>;
  /** The server's command tag ("SELECT", "DO"), null where it ran no statement (an empty query: comments only) or more rows were left. */
  command: string | null;
}

/**
 * `sql` as one statement through the extended query protocol (Parse, Bind, Execute: the server
 * refuses a text of several statements), from a portal read `limit` rows at most: the rest is
 * never produced nor sent.
 */
export async function firstRows(client: pg.Client, sql: string, limit: number): Promise<FirstRows> {
  const cursor = client.query(new Cursor(sql, undefined, { rowMode: 'array', types: asText }));
  const read = await new Promise<FirstRows>((resolve, reject) =>
    cursor.read(limit, (err, rows, result) =>
      err ? reject(err) : resolve({ columns: (result?.fields ?? []).map((f) => f.name), rows: rows as FirstRows['rows'], command: result?.command || null }),
    ),
  );
  await cursor.close().catch(() => undefined);
  return read;
}

/** SQLSTATE of the warning ROLLBACK gives where no transaction is open. */
const NO_ACTIVE_TRANSACTION = '25P01';

/**
 * `fn` inside a transaction block svc opens read-only and always rolls back (cli-contract 7.16 b):
 * the server then refuses any write, and a COMMIT inside a DO block or procedure is an error, whatever
 * the text `fn` sends. A statement that ended the block itself (COMMIT, PREPARE TRANSACTION) is
 * told by the server's warning on the ROLLBACK: that is an error too, so nothing it did counts, and
 * a transaction it prepared is rolled back (it would hold its locks and keep the database from
 * being dropped).
 */
export async function readOnlyTransaction<T>(client: pg.Client, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  let value: T;
  try {
    value = await fn();
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  let ended = false;
  const notice = (n: { code?: string }) => void (ended ||= n.code === NO_ACTIVE_TRANSACTION);
  client.on('notice', notice);
  try {
    await client.query('ROLLBACK');
  } finally {
    client.off('notice', notice);
  }
  if (!ended) return value;
  const prepared = await client.query<{ gid: string }>(
    'SELECT gid FROM pg_catalog.pg_prepared_xacts WHERE database OPERATOR(pg_catalog.=) pg_catalog.current_database() AND owner OPERATOR(pg_catalog.=) CURRENT_USER',
  );
  for (const { gid } of prepared.rows) await client.query(`ROLLBACK PREPARED ${pg.escapeLiteral(gid)}`);
  throw new Error('the check ended the read-only transaction svc ran it in (COMMIT, ROLLBACK or PREPARE TRANSACTION as its statement)');
}
