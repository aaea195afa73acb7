/**
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

/** Always quoted, as the server's quote_ident would need at most: safe for any name. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL string literal (standard_conforming_strings on, as every supported server has it). */
export function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
