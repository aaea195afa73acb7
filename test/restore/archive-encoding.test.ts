/** Reading an archive's text in its own encoding (cli-contract 7.18): the bytes pg_restore prints, as the database stored them. */
import { describe, expect, it } from 'vitest';
import { archiveEncoding, ByteLines } from '../../src/restore/archive/archive-encoding.js';
import { parseArchiveScript, ScriptParser } from '../../src/restore/archive/archive-script.js';

describe('archive encodings', () => {
  it('decodes LATIN1, WIN1252 (its 0x80-0x9F too) and EUC_JP, through UTF-8 sessions', () => {
    expect(archiveEncoding('LATIN1').decode(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x80]))).toBe('café\u0080');
    expect(archiveEncoding('WIN1252').decode(Buffer.from([0x80, 0x8c, 0x9f, 0xe9, 0x81]))).toBe('€ŒŸé\u0081');
    expect(archiveEncoding('EUC_JP').decode(Buffer.from([0xc6, 0xfc, 0xcb, 0xdc]))).toBe('日本');
    for (const name of ['LATIN1', 'WIN1252', 'EUC_JP', 'UTF8', 'KOI8R']) expect(archiveEncoding(name).client).toBe('UTF8');
  });

  it('carries SQL_ASCII byte for byte, with an SQL_ASCII session', () => {
    const sqlAscii = archiveEncoding('SQL_ASCII');
    expect(sqlAscii.client).toBe('SQL_ASCII');
    const raw = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0xc3, 0xa9]);
    expect(Buffer.from(sqlAscii.decode(raw), 'latin1')).toEqual(raw);
  });

  it('reads the script in the encoding its preamble sets, from that line on', () => {
    const parser = new ScriptParser();
    const lines = new ByteLines((raw) => parser.line(parser.encoding.decode(raw)));
    const latin1 = (s: string) => Buffer.from(s, 'latin1');
    lines.push(latin1("SET client_encoding = 'LATIN1';\nSET standard_conforming_strings = on;\n--\n-- Name: caf"));
    lines.push(latin1('é; Type: TABLE; Schema: école; Owner: postgres\r\n'));
    lines.end();
    const script = parser.done();
    expect(script.encoding.name).toBe('LATIN1');
    expect(script.entries).toEqual([{ type: 'TABLE', name: 'café', schema: 'école', owner: 'postgres', sql: '' }]);
    expect(parseArchiveScript('-- a script without a preamble\n').encoding.name).toBe('UTF8');
  });
});
