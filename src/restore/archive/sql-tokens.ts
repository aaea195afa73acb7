/**
 * A strict tokenizer for the few statements svc re-issues from an archive's schema script
 * (CREATE DATABASE options, ALTER DATABASE ... SET, COMMENT ON DATABASE): string literals,
 * numbers, identifiers (plain or double-quoted), commas, '=' and ';'. Anything else (an E'' string,
 * a dollar quote, an operator, a comment) is refused, so nothing but data crosses from the
 * archive into SQL svc runs.
 */
import { quoteIdent, quoteLiteral } from '../../pg/quote.js';

export type SqlToken =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: string }
  | { kind: 'ident'; value: string; quoted: boolean }
  | { kind: 'punct'; value: ',' | '=' | ';' };

const PLAIN_IDENT = /^[A-Za-z_][A-Za-z0-9_$]*/;
const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?![A-Za-z0-9_$])/;

/** The tokens of `text`, or undefined where it holds anything outside the grammar above. */
export function tokenize(text: string): SqlToken[] | undefined {
  const tokens: SqlToken[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === ',' || c === '=' || c === ';') {
      tokens.push({ kind: 'punct', value: c });
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = closing(text, i, c);
      if (end === undefined) return undefined;
      const value = text.slice(i + 1, end).replaceAll(c + c, c);
      // An identifier cannot be empty or hold a NUL; neither can anything pg_dump writes.
      if (value.includes('\0') || (c === '"' && !value)) return undefined;
      tokens.push(c === "'" ? { kind: 'string', value } : { kind: 'ident', value, quoted: true });
      i = end + 1;
      continue;
    }
    const rest = text.slice(i);
    const number = NUMBER.exec(rest);
    if (number) {
      tokens.push({ kind: 'number', value: number[0] });
      i += number[0].length;
      continue;
    }
    const ident = PLAIN_IDENT.exec(rest);
    // E'...' (backslash escapes) and U&'...' are not what pg_dump writes with standard_conforming_strings.
    if (!ident || text[i + ident[0].length] === "'" || text[i + ident[0].length] === '&') return undefined;
    tokens.push({ kind: 'ident', value: ident[0].toLowerCase(), quoted: false });
    i += ident[0].length;
  }
  return tokens;
}

/** The index of the quote closing the one at `start` ('' and "" are escaped quotes inside). */
function closing(text: string, start: number, quote: string): number | undefined {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] !== quote) continue;
    if (text[i + 1] === quote) {
      i++;
      continue;
    }
    return i;
  }
  return undefined;
}

/** Splits tokens into statements at ';' (an unterminated last statement is kept as one). */
export function statements(tokens: SqlToken[]): SqlToken[][] {
  const out: SqlToken[][] = [[]];
  for (const t of tokens) {
    if (t.kind === 'punct' && t.value === ';') out.push([]);
    else out[out.length - 1]!.push(t);
  }
  return out.filter((s) => s.length > 0);
}

/** A token written back as SQL: strings and quoted identifiers re-quoted by svc, never copied. */
export function writeToken(t: SqlToken): string {
  if (t.kind === 'string') return quoteLiteral(t.value);
  if (t.kind === 'ident') return t.quoted ? quoteIdent(t.value) : t.value;
  return t.value;
}

/** Whether token `t` is the keyword `word` (an unquoted identifier, case-insensitive). */
export function isWord(t: SqlToken | undefined, word: string): boolean {
  return t?.kind === 'ident' && !t.quoted && t.value === word.toLowerCase();
}
