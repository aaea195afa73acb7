/**
 * The test helpers' SQL in process (node-postgres) instead of a `psql -X -q -w -A -t -v ON_ERROR_STOP=1
 * -f -` per call: the suite ran psql some 5,000 times, each a process of its own. The caller gets
 * what it got from psql: each row's values as the server's text, joined by `|`, NULL as empty, rows
 * (of every statement that returns rows, in order) joined by newlines, the whole trimmed.
 *
 * psql splits a script into statements and runs each on its own (autocommit), stopping at the first
 * error; so does this, on one connection: a multi-statement message would be one implicit
 * transaction, in which CREATE DATABASE, VACUUM and the like fail and an error undoes the statements
 * before it. The split follows psql's lexer (quotes, E'' strings, quoted identifiers, dollar quotes,
 * comments, parentheses). A script only psql can run is left to psql (psqlStatements() gives
 * undefined): a backslash outside a literal (a meta-command such as \gexec), a colon that could
 * start a psql variable (`:name`, `:'name'`), COPY (its data on stdin), BEGIN ATOMIC (psql's lexer
 * keeps its body whole), or a quote or comment left open.
 *
 * One short-lived connection per call, as with psql: a connection kept open would hold its
 * database against DROP DATABASE, RENAME or CREATE DATABASE ... TEMPLATE.
 */
import pg from 'pg';

/** Where the SQL runs: TCP with a password, or a socket directory as host (trust). */
export interface SqlTarget {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
}

/** Every value as the server's text output (t/f, {..}, \x.., the server's DateStyle), as psql prints it. */
const SERVER_TEXT = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

const CONNECT_TIMEOUT_MS = 10_000;
const QUERY_TIMEOUT_MS = 300_000;

/** A SQL or connection failure: the server's error (ERROR, DETAIL, HINT lines) or the client's. */
export class SqlRunError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlRunError';
  }
}

const IDENT = /[\p{L}\p{N}_$]/u;

/** Index just past the quote `q` opened at `i` (a doubled quote stays inside; with `backslashes`, \x too), or -1 when it stays open. */
function quoteEnd(sql: string, i: number, q: string, backslashes: boolean): number {
  for (let j = i + 1; j < sql.length; j++) {
    if (backslashes && sql[j] === '\\') j++;
    else if (sql[j] === q) {
      if (sql[j + 1] !== q) return j + 1;
      j++;
    }
  }
  return -1;
}

/** Index just past the nested comment opened at `i`, or -1. */
function commentEnd(sql: string, i: number): number {
  let level = 0;
  for (let j = i; j < sql.length - 1; j++) {
    if (sql[j] === '/' && sql[j + 1] === '*') [level, j] = [level + 1, j + 1];
    else if (sql[j] === '*' && sql[j + 1] === '/') {
      [level, j] = [level - 1, j + 1];
      if (level === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * The statements of `sql` as psql would send them one by one (empty ones and comment-only ones
 * dropped), or undefined when only psql can run the script (see the module comment).
 */
export function psqlStatements(sql: string): string[] | undefined {
  if (/\bBEGIN\s+ATOMIC\b/i.test(sql)) return undefined;
  const statements: string[] = [];
  let start = 0;
  let depth = 0;
  let content = false;
  const end = (at: number) => {
    const text = sql.slice(start, at).trim();
    if (content) statements.push(text);
    [start, content] = [at + 1, false];
  };
  for (let i = 0; i < sql.length;) {
    const c = sql[i]!;
    const next = sql[i + 1] ?? '';
    let after = i + 1;
    if (c === '-' && next === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
      continue;
    }
    if (c === '/' && next === '*') after = commentEnd(sql, i);
    else if (c === "'") after = quoteEnd(sql, i, "'", /[eE]/.test(sql[i - 1] ?? '') && !IDENT.test(sql[i - 2] ?? ''));
    else if (c === '"') after = quoteEnd(sql, i, '"', false);
    else if (c === '$' && !IDENT.test(sql[i - 1] ?? '')) {
      const tag = /^\$(?:[\p{L}_][\p{L}\p{N}_]*)?\$/u.exec(sql.slice(i, i + 100))?.[0];
      if (tag) {
        const close = sql.indexOf(tag, i + tag.length);
        after = close < 0 ? -1 : close + tag.length;
      }
    } else if (c === '\\') return undefined;
    else if (c === ':' && next === ':') after = i + 2;
    else if (c === ':' && /[\p{L}_'"{]/u.test(next)) return undefined;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    if (after < 0) return undefined;
    if (c === ';' && depth === 0) end(i);
    else if (!/\s/.test(c) && !(c === '/' && next === '*')) content = true;
    i = after;
  }
  end(sql.length);
  const copy = statements.some((s) => /^(?:(?:--[^\n]*\n|\/\*[\s\S]*?\*\/)\s*)*COPY\b/i.test(s));
  return copy ? undefined : statements;
}

function serverError(e: unknown): SqlRunError {
  const err = e as Partial<pg.DatabaseError> & Error;
  const severity = err.severity ?? 'ERROR';
  const lines = err.severity ? [`${severity}:  ${err.message}`] : [String(err.message ?? err)];
  if (err.detail) lines.push(`DETAIL:  ${err.detail}`);
  if (err.hint) lines.push(`HINT:  ${err.hint}`);
  return new SqlRunError(lines.join('\n'));
}

/**
 * Runs `statements` (from psqlStatements()) on one connection to `target`, each on its own and up to
 * the first error (thrown as SqlRunError); returns the rows as psql -A -t prints them, trimmed.
 */
export async function runStatements(target: SqlTarget, statements: string[]): Promise<string> {
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    user: target.user,
    database: target.database,
    // A function: pg would otherwise fall back to PGPASSWORD and its own pgpass reader.
    password: async () => target.password ?? '',
    ssl: false,
    application_name: 'svc-tests',
    client_encoding: 'UTF8',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    types: SERVER_TEXT,
  });
  // A connection the server ends (a shutdown, pg_terminate_backend) would otherwise be an uncaught 'error'.
  client.on('error', () => {});
  const lines: string[] = [];
  try {
    await client.connect();
    for (const text of statements) {
      const answer = (await client.query({ text, rowMode: 'array' })) as pg.QueryArrayResult | pg.QueryArrayResult[];
      for (const result of Array.isArray(answer) ? answer : [answer]) {
        for (const row of result.rows ?? []) lines.push(row.map((v) => (v === null ? '' : String(v))).join('|'));
      }
    }
  } catch (e) {
    throw serverError(e);
  } finally {
    await client.end().catch(() => {});
  }
  return lines.join('\n').trim();
}
