/**
 * Ways to catch a real restore run in a given phase, for the signal tests: a lock another session
 * holds (pg_restore, ANALYZE or the object check waits for it), a psql PATH shim that stops at a
 * chosen script until the test lets it go on, a TCP relay that holds a message of svc's own sessions
 * on the wire, and a TCP server that accepts and never answers (psql hangs in preflight). Every helper here cleans up in releaseAll(), for afterEach.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { PgCluster } from './pg-cluster.js';
import { DSN_PASSWORD, waitFor, type RestoreHarness } from './restore-harness.js';
import { listenOnLoopback } from './ports.js';

/** A server the lock helpers work on: the harness's cluster, or a drill's own scratch cluster. */
export interface SqlServer {
  /** The client tools' directory (psql). */
  binDir: string;
  /** psql's connection arguments and environment for a session in `database`. */
  session(database: string): { args: string[]; env: Record<string, string> };
  /** Runs SQL there; stdout trimmed. */
  psql(sql: string, database?: string): Promise<string>;
}

/** The harness's cluster over TCP, as its superuser. */
export function clusterServer(cluster: PgCluster): SqlServer {
  return {
    binDir: cluster.binDir,
    session: (database) => ({
      args: ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', database],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PGPASSWORD: DSN_PASSWORD, LC_ALL: 'C' },
    }),
    psql: (sql, database) => cluster.psql(sql, database),
  };
}

const serverOf = (on: RestoreHarness | SqlServer): SqlServer => ('cluster' in on ? clusterServer(on.cluster) : on);

const holders = new Set<ResultPromise>();
const servers = new Set<{ server: Server; sockets: Set<Socket> }>();

/** For afterEach: ends every lock holder and black-hole server a test left behind. */
export async function releaseAll(): Promise<void> {
  for (const holder of holders) holder.kill('SIGTERM');
  await Promise.allSettled([...holders]);
  holders.clear();
  for (const { server, sockets } of servers) {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  servers.clear();
}

/**
 * A psql session in `database` that runs `sql` inside an open transaction and keeps it open until
 * released (ROLLBACK on stdin) or killed. Resolves once the lock on `lockedRelation` (a table name,
 * or `pg_catalog.<name>` for a catalog) is granted.
 */
export async function holdLock(on: RestoreHarness | SqlServer, database: string, sql: string, lockedRelation: string): Promise<{ release(): Promise<void> }> {
  const server = serverOf(on);
  const session = server.session(database);
  const holder = execa(join(server.binDir, 'psql'), ['-X', '-q', '-w', '-v', 'ON_ERROR_STOP=1', ...session.args], {
    env: session.env,
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
  });
  holders.add(holder);
  holder.stdin!.write(`BEGIN;\n${sql}\n`);
  // A catalog's oid is the same in every database: checked from `postgres`, which the lock cannot block. A shared
  // catalog's lock (pg_database) is in no database.
  const granted = lockedRelation.startsWith('pg_catalog.')
    ? () =>
        server.psql(
          `SELECT count(*) FROM pg_locks l LEFT JOIN pg_database d ON d.oid = l.database
           WHERE (d.datname = '${database}' OR l.database = 0) AND l.granted AND l.mode IN ('AccessExclusiveLock', 'ShareLock', 'ShareUpdateExclusiveLock')
             AND l.pid <> pg_backend_pid() AND l.relation = '${lockedRelation}'::regclass`,
        )
    : () =>
        server.psql(
          `SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
           WHERE d.datname = '${database}' AND l.granted AND l.mode IN ('AccessExclusiveLock', 'ShareLock', 'ShareUpdateExclusiveLock')
             AND l.pid <> pg_backend_pid() AND l.relation = (SELECT oid FROM pg_class WHERE relname = '${lockedRelation}' LIMIT 1)`,
          database,
        );
  await waitFor(`a granted lock on ${lockedRelation} in ${database}`, async () => (await granted()) === '1' || undefined);
  return {
    async release() {
      holder.stdin!.end('ROLLBACK;\n');
      await holder;
      holders.delete(holder);
    },
  };
}

/** Some session in `database` waits for a lock: the step under test has reached the held object. */
export function lockWaiter(on: RestoreHarness | SqlServer, database: string): Promise<true> {
  const server = serverOf(on);
  return waitFor(
    `a session waiting for a lock in ${database}`,
    async () =>
      Number(await server.psql(`SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE d.datname = '${database}' AND NOT l.granted`)) >
        0 || undefined,
  );
}

/** Waits until `count` sessions (not the probe's own) wait for a lock while running a statement LIKE `like`: svc's own statement, found by its text. */
export function statementsWaiting(on: RestoreHarness | SqlServer, what: string, like: string, count = 1): Promise<true> {
  const server = serverOf(on);
  const sql = `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '${like.replace(/'/g, "''")}' AND pid <> pg_backend_pid()`;
  return waitFor(what, async () => (await server.psql(sql)) === String(count) || undefined);
}

/** SQL for holdLock: every user table of the database locked as ANALYZE's own lock is (a reader still reads, ANALYZE waits). */
export const ANALYZE_LOCK_SQL = `DO $$ DECLARE r record; BEGIN
  FOR r IN SELECT c.oid::regclass AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relkind IN ('r', 'p') AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%' LOOP
    EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE', r.t);
  END LOOP;
END $$;`;

/**
 * A TCP relay on 127.0.0.1 in front of the harness's cluster, for a statement svc sends through a
 * session of its own (node-postgres: no client tool to put a shim in front of). It passes every
 * byte both ways, until a client sends a message holding `text`: `before`, that message and the rest
 * of that connection wait until go(), so the server has not seen the statement; `after`, the message
 * goes on and the server's answer waits, so the statement ran but svc has not heard so. Only the
 * first connection to send it is held, or with `every` each one that sends it before go().
 * The TLS-less loopback cluster of the harness is what makes the text visible on the wire.
 */
export async function wireGate(
  h: RestoreHarness,
  text: string,
  when: 'before' | 'after',
  opts: { every?: boolean } = {},
): Promise<{ port: number; reached(): Promise<true>; go(): void }> {
  const sockets = new Set<Socket>();
  let seen = false;
  let answered = false;
  let open = false;
  const held: Array<() => void> = [];
  const hold = (fn: () => void) => (open ? fn() : held.push(fn));
  const server = createServer((client) => {
    const upstream = createConnection(h.cluster.port, '127.0.0.1');
    let gated = false;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if ((!seen || (opts.every && !open)) && !gated && chunk.includes(text)) seen = gated = true;
      if (gated && when === 'before') hold(() => upstream.write(chunk));
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!gated || when === 'before') return void client.write(chunk);
      answered = true;
      hold(() => client.write(chunk));
    });
  });
  const port = await listenOnLoopback(server);
  servers.add({ server, sockets });
  return {
    port,
    // `after`: once the server's answer is held, so the statement has run.
    reached: () => waitFor(`a session sending ${text}`, () => (when === 'before' ? seen : answered) || undefined),
    go() {
      open = true;
      for (const fn of held.splice(0)) fn();
    },
  };
}

/** A TCP server on 127.0.0.1 that accepts connections and never says a word: psql waits in its start-up. */
export async function blackHole(): Promise<{ port: number; accepted(): Promise<true>; open(): number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    // Read (and drop) what psql sends, so its closing the connection is seen.
    socket.resume();
    socket.on('close', () => sockets.delete(socket));
  });
  let count = 0;
  server.on('connection', () => (count += 1));
  const port = await listenOnLoopback(server);
  servers.add({ server, sockets });
  return { port, accepted: () => waitFor('a connection to the black-hole server', () => count > 0 || undefined), open: () => sockets.size };
}
