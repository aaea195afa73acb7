import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { Target } from '../restore/target/target.js';
import type { MessageBounds } from './bounded-messages.js';
import { passwordFromFile } from './pgpass.js';
import { quoteLiteral } from './quote.js';
import { tlsPlan } from './tls.js';
import { BoundedWire } from './wire.js';

type Env = Record<string, string | undefined>;

/**
 * A connection of svc's own (node-postgres, in process): its password is handed over in memory
 * only, never through an environment, argv or a file.
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
  /** libpq's connect_timeout in milliseconds (PGCONNECT_TIMEOUT); 10 s where none is set; 0 is no limit. */
  connectTimeoutMs?: number;
  /** Settings for the session (the startup packet's options), e.g. `-c statement_timeout=60s`. */
  options?: string;
  /** What one message from the server may cost (a SQL check's answers); null for svc's own queries, whose answers it needs whole. */
  bounds: MessageBounds | null;
  /** The session's application_name; `svc` where none is given. */
  applicationName?: string;
}

/** A value keeps this many bytes, enough for 200 characters and one more (4 bytes each at most). */
export const CHECK_BOUNDS: MessageBounds = { valueBytes: 804, textBytes: 2048, otherBytes: 1 << 20 };
const CONNECT_TIMEOUT_MS = 10_000;

/** The libpq default socket directory where its socket for `port` exists (Debian's, then upstream's). */
function defaultHost(port: number): string {
  for (const dir of ['/var/run/postgresql', '/tmp']) if (existsSync(join(dir, `.s.PGSQL.${port}`))) return dir;
  return 'localhost';
}

/** How a SQL check reaches `database` on the server of `target` as `user` (with `password`, else PGPASSWORD, else PGPASSFILE or ~/.pgpass, as libpq); its answers bounded. */
export function sessionConfig(target: Target, env: Env, user: string, password: string | undefined, database: string): SessionConfig {
  const host = target.host ?? env.PGHOST ?? defaultHost(target.port);
  const passfile = target.params.PGPASSFILE ?? env.PGPASSFILE;
  const known = password ?? env.PGPASSWORD ?? passwordFromFile(passfile, host, target.port, database, user);
  // libpq takes a timeout under 2 s as 2 s, and 0 as no limit.
  const seconds = Number.parseInt(target.params.PGCONNECT_TIMEOUT ?? env.PGCONNECT_TIMEOUT ?? '10', 10);
  const connectTimeoutMs = !Number.isFinite(seconds) ? CONNECT_TIMEOUT_MS : seconds <= 0 ? 0 : Math.max(seconds, 2) * 1000;
  return { host, port: target.port, user, database, password: known, connectTimeoutMs, ...tlsPlan(target.params, env, host), bounds: CHECK_BOUNDS };
}

/** Every value as the server's text (a value cut short must not reach a JSON or date parser), booleans as words. */
const asText = {
  getTypeParser: (oid: number) => (oid === 16 ? (v: string) => (v === 't' ? 'true' : 'false') : (v: string) => v),
} as unknown as pg.CustomTypesConfig;

interface Opened {
  client: pg.Client;
  wire: BoundedWire;
}

/**
 * A connected client. pg gets the connection's bytes from BoundedWire through its public `stream`
 * option and is told `ssl: false`: the wire does the SSLRequest and TLS itself, beneath the bound.
 */
async function open(config: SessionConfig, signal?: AbortSignal): Promise<Opened> {
  const { ssl, plainFallback, options, bounds, connectTimeoutMs, applicationName, ...rest } = config;
  const wire = new BoundedWire({ ssl, plainFallback }, bounds);
  const client = new pg.Client({
    ...rest,
    // A function: pg would otherwise look in process.env and its own (deprecated) pgpass reader for a password svc did not give.
    password: async () => config.password,
    ssl: false,
    stream: () => wire,
    connectionTimeoutMillis: connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    application_name: applicationName ?? 'svc',
    ...(options ? { options } : {}),
  } as pg.ClientConfig);
  // A connection that breaks is reported to the query that is running; pg emits it here too.
  client.on('error', () => undefined);
  // A signal while connecting (a server that accepts and never answers) ends the attempt at once, not at the connect timeout.
  const abort = () => wire.destroy();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    signal?.throwIfAborted();
    await client.connect();
  } finally {
    signal?.removeEventListener('abort', abort);
  }
  return { client, wire };
}

/** A connected client; under sslmode=prefer, without TLS where the server has none. */
export async function openSession(config: SessionConfig): Promise<pg.Client> {
  return (await open(config)).client;
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
  const { client, wire } = await open(config, signal);
  const abort = () => {
    cancelOnServer(config, client);
    wire.destroy();
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
  for (const { gid } of prepared.rows) await client.query(`ROLLBACK PREPARED ${quoteLiteral(gid)}`);
  throw new Error('the check ended the read-only transaction svc ran it in (COMMIT, ROLLBACK or PREPARE TRANSACTION as its statement)');
}
