import pg from 'pg';

/**
 * A query or connection of svc's own that failed, in libpq's and psql's words (its first line is the
 * reason shown in one-line messages), scrubbed of every secret, so a caller tells the server's
 * refusal from svc's own bug by one class.
 */
export class PgError extends Error {
  constructor(readonly stderr: string) {
    super(stderr);
  }

  /** The first line: the reason, for a one-line message. */
  get reason(): string {
    return this.stderr.split('\n')[0] ?? '';
  }
}

/** libpq's wording for what the socket said (fe-connect.c), so that a refused port reads as it did from psql. */
const SOCKET_WORDS: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ENOENT: 'No such file or directory',
  EHOSTUNREACH: 'No route to host',
  ENETUNREACH: 'Network is unreachable',
  ETIMEDOUT: 'Connection timed out',
  ECONNRESET: 'server closed the connection unexpectedly',
};

interface Failure {
  message: string;
  code?: string;
  severity?: string;
}

/**
 * What a failed connection or query says, as psql would have said it: "ERROR:  ..." from the server;
 * before the session was up, `connection to server at "h", port p failed: ...` (libpq's form).
 */
export function pgFailureText(err: unknown, where: { host: string; port: number }, connected: boolean): string {
  const e = err as Failure;
  // node-postgres's words where the server asked for a password svc has none for.
  const message = /password must be a string/i.test(e.message) ? 'fe_sendauth: no password supplied' : e.message;
  const said = e.severity ? `${e.severity}:  ${message}` : (SOCKET_WORDS[e.code ?? ''] ?? message);
  if (connected) return said;
  const server = where.host.startsWith('/') ? `on socket "${where.host}/.s.PGSQL.${where.port}"` : `at "${where.host}", port ${where.port}`;
  const hint = e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' ? `could not translate host name "${where.host}" to address: ${e.message}` : undefined;
  if (hint) return hint;
  const running =
    e.code === 'ECONNREFUSED' && !where.host.startsWith('/')
      ? '\n\tIs the server running on that host and accepting TCP/IP connections?'
      : e.code === 'ECONNREFUSED' || e.code === 'ENOENT'
        ? '\n\tIs the server running locally and accepting connections on that socket?'
        : '';
  return `connection to server ${server} failed: ${said}${running}`;
}

/** The server's reason where `err` is its refusal of one statement (the session goes on); undefined for anything else. */
export function refusalOf(err: unknown): string | undefined {
  return err instanceof pg.DatabaseError ? (err.message.split('\n')[0] ?? '') : undefined;
}
