/**
 * svc's one quoting helper for the SQL it builds (identifiers and literals), and the reader of
 * SQL identifiers as pg_dump writes them (fmtId): a quoted identifier ("b c", "" for a quote) or a
 * plain one, which the server folds to lower case. Read strictly: text that is neither is refused,
 * so nothing of an archive's text ever reaches a statement svc builds except a name it re-quotes.
 */
const QUOTED = /^"((?:[^"]|"")+)"/;
const PLAIN = /^([A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*)/;

/** The identifier at the start of `text`: its catalog name and how many characters it took; undefined when there is none. */
export function readIdent(text: string): { name: string; length: number; quoted: boolean } | undefined {
  const q = QUOTED.exec(text);
  if (q) return { name: q[1]!.replaceAll('""', '"'), length: q[0].length, quoted: true };
  const p = PLAIN.exec(text);
  return p ? { name: p[1]!.toLowerCase(), length: p[0].length, quoted: false } : undefined;
}

/** PostgreSQL holds no NUL in a name or a text, and a statement is a C string: the server would read it cut short. */
function refuseNul(text: string, what: string): void {
  if (text.includes('\0')) throw new Error(`${what} holds a NUL character, which PostgreSQL cannot store.`);
}

/** Always quoted, as the server's quote_ident would need at most: safe for any name; an empty name is no name. */
export function quoteIdent(name: string): string {
  if (name === '') throw new Error('An SQL identifier cannot be empty.');
  refuseNul(name, 'An SQL identifier');
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A SQL string literal, as libpq's PQescapeLiteral writes it: a value with a backslash becomes an
 * escape string (E'...', backslashes doubled), right whatever standard_conforming_strings is. For
 * values only where the statement takes no bind parameter ($1): utility statements, DO blocks, scripts.
 */
export function quoteLiteral(value: string): string {
  refuseNul(value, 'An SQL string');
  const quoted = `'${value.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`;
  return value.includes('\\') ? `E${quoted}` : quoted;
}

const ENCODING_NAME = /^[A-Z0-9_]+$/;

/** How `encoding`'s bytes are held as a JS string: UTF-8 decoded where it is UTF8, else one byte a character U+0000-U+00FF. */
const charsOf = (encoding: string): BufferEncoding => (encoding === 'UTF8' ? 'utf8' : 'latin1');

/** The hex digits of `value`'s bytes in `encoding`, for the server to decode and convert (see serverText). */
export function hexOf(value: string, encoding: string): string {
  return Buffer.from(value, charsOf(encoding)).toString('hex');
}

/**
 * A text value made by the server from its bytes in `encoding` (one svc chose: archive-encoding.ts),
 * for a name or value that must reach the database byte for byte: node-postgres writes every
 * statement as UTF-8, so the statement holds only the bytes' hex digits, and the server converts
 * them (SQL_ASCII: unchanged). For DO blocks and utility statements, which take no bind parameter.
 */
export function serverText(value: string, encoding: string): string {
  refuseNul(value, 'An SQL string');
  if (!ENCODING_NAME.test(encoding)) throw new Error(`Not an encoding name: ${JSON.stringify(encoding)}.`);
  return `pg_catalog.convert_from(pg_catalog.decode('${hexOf(value, encoding)}', 'hex'), '${encoding}')`;
}

/** The bytes of a name the server gave as `convert_to(name, encoding)`, as svc holds text in `encoding` (the reverse of serverText). */
export function textOfBytes(bytes: Buffer, encoding: string): string {
  return bytes.toString(charsOf(encoding));
}

/** A conninfo value in single quotes (a client tool's `-d dbname=...`), so a name with spaces or '=' stays one value. */
export function quoteConninfo(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
