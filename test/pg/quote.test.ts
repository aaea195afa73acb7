/**
 * svc's one quoting helper (src/pg/quote.ts): every name and value it writes into SQL comes back
 * from the server as it went in (the round trips against a real server are in session.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { quoteIdent, quoteLiteral, readIdent } from '../../src/pg/quote.js';

describe('quoteIdent', () => {
  it('always double-quotes, doubling a quote inside', () => {
    expect(quoteIdent('sales')).toBe('"sales"');
    expect(quoteIdent('Sales "2024"')).toBe('"Sales ""2024"""');
    expect(quoteIdent('"')).toBe('""""');
  });

  it('keeps any other character as it is: a name read byte for byte (U+0080-U+00FF), a newline, a backslash', () => {
    for (const name of ['caf\u00e9', '\u00ff\u0080\u00a0', 'new\nline', 'a\\b', 'x;DROP TABLE t', '\u{1f600}']) {
      expect(quoteIdent(name)).toBe(`"${name}"`);
      expect(readIdent(quoteIdent(name))).toEqual({ name, length: name.length + 2, quoted: true });
    }
  });

  it('refuses an empty name and a NUL, which no PostgreSQL name can hold', () => {
    expect(() => quoteIdent('')).toThrow('An SQL identifier cannot be empty.');
    expect(() => quoteIdent('a\0b')).toThrow('An SQL identifier holds a NUL character, which PostgreSQL cannot store.');
  });
});

describe('quoteLiteral', () => {
  it('a standard string, a quote doubled; the empty string is two quotes', () => {
    expect(quoteLiteral("it's")).toBe("'it''s'");
    expect(quoteLiteral('')).toBe("''");
    expect(quoteLiteral('caf\u00e9 \u00ff')).toBe("'caf\u00e9 \u00ff'");
  });

  it('a value with a backslash as an escape string, as libpq writes it: the same value whatever standard_conforming_strings says', () => {
    expect(quoteLiteral('C:\\dir')).toBe("E'C:\\\\dir'");
    expect(quoteLiteral("\\'; DROP TABLE t; --")).toBe("E'\\\\''; DROP TABLE t; --'");
  });

  it('refuses a NUL', () => {
    expect(() => quoteLiteral('a\0')).toThrow('An SQL string holds a NUL character, which PostgreSQL cannot store.');
  });
});
