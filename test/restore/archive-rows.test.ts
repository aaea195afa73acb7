/**
 * The archive's row counts (src/restore/archive/archive-rows.ts, cli-contract 9.11): COPY blocks of
 * `pg_restore -f -` counted line by line from bytes, whatever the chunks, with names pg_dump quotes.
 */
import { describe, expect, it } from 'vitest';
import { CopyRowCounter, parseCopyHeader, tableKey } from '../../src/restore/archive/archive-rows.js';

const SCRIPT = [
  '--',
  '-- PostgreSQL database dump',
  '--',
  '',
  "SET client_encoding = 'UTF8';",
  '',
  '--',
  '-- Data for Name: customers; Type: TABLE DATA; Schema: public; Owner: postgres',
  '--',
  '',
  'COPY public.customers (id, name) FROM stdin;',
  '1\tAda',
  '2\tline one\\nline two',
  '3\t\\\\.',
  '\\.',
  '',
  '',
  'COPY "Sales 2024"."my ""odd"" table" (id, "col, with ) comma") FROM stdin;',
  '1\tx',
  '\\.',
  '',
  'COPY "we\nird"."na.me" ("a',
  'b") FROM stdin;',
  '1\t2',
  '2\t3',
  '\\.',
  '',
  'COPY public.empty (id) FROM stdin;',
  '\\.',
  '',
  'COPY public.customers (id, name) FROM stdin;',
  '4\tsecond block of the same table (--load-via-partition-root)',
  '\\.',
  '',
  '-- PostgreSQL database dump complete',
  '',
].join('\n');

const EXPECTED = new Map([
  [tableKey('public', 'customers'), 4],
  [tableKey('Sales 2024', 'my "odd" table'), 1],
  [tableKey('we\nird', 'na.me'), 2],
  [tableKey('public', 'empty'), 0],
]);

describe('CopyRowCounter', () => {
  it("counts each table's rows, a value with an escaped newline or a leading backslash-dot being one row", () => {
    const c = new CopyRowCounter();
    c.push(Buffer.from(SCRIPT));
    expect(c.end()).toEqual(EXPECTED);
    expect(c.blocks).toBe(5);
  });

  it('gives the same counts whatever the chunk boundaries (every split point, and one byte at a time)', () => {
    const bytes = Buffer.from(SCRIPT);
    for (let at = 0; at <= bytes.length; at++) {
      const c = new CopyRowCounter();
      c.push(bytes.subarray(0, at));
      c.push(bytes.subarray(at));
      expect(c.end(), `split at ${at}`).toEqual(EXPECTED);
    }
    const c = new CopyRowCounter();
    for (let i = 0; i < bytes.length; i++) c.push(bytes.subarray(i, i + 1));
    expect(c.end()).toEqual(EXPECTED);
  });

  it('output cut short inside a COPY block is an error, not a count', () => {
    const c = new CopyRowCounter();
    c.push(Buffer.from('COPY public.t (a) FROM stdin;\n1\n2\n'));
    expect(() => c.end()).toThrow(/ended inside a COPY block/);
  });

  it('a COPY line pg_restore does not write is an error', () => {
    const c = new CopyRowCounter();
    expect(() => c.push(Buffer.from('COPY public.t (a) TO stdout;\n'))).toThrow(/unexpected COPY/);
  });
});

describe('parseCopyHeader', () => {
  it('reads schema and name, quoted or not; waits for the rest of a quoted name that holds a newline', () => {
    expect(parseCopyHeader('COPY public.orders (id, "Note") FROM stdin;')).toEqual({ schema: 'public', name: 'orders' });
    expect(parseCopyHeader('COPY "a"".b"."c d" FROM stdin;')).toEqual({ schema: 'a".b', name: 'c d' });
    expect(parseCopyHeader('COPY "a')).toBe('incomplete');
    expect(parseCopyHeader('COPY public.t ("x')).toBe('incomplete');
  });
});
