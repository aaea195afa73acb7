/**
 * The text of an archive is in its database's encoding, not UTF-8: pg_dump writes names, comments
 * and the rest as the source database stores them (unless it was told otherwise with -E), and
 * `pg_restore -l` and `pg_restore -f -` print those bytes as they are (cli-contract 7.18). The
 * encoding is named by the archive's ENCODING entry, which pg_restore prints as the script's
 * `SET client_encoding = '...';` before any object.
 */
export interface ArchiveEncoding {
  /** As PostgreSQL names it: UTF8, LATIN1, WIN1252, EUC_JP, SQL_ASCII, ... */
  name: string;
  /** The archive's bytes as text. */
  decode: (bytes: Uint8Array) => string;
  /**
   * The client_encoding of svc's own sessions that exchange the archive's names with a database
   * restored from it. UTF8 where the server converts the archive's encoding to UTF-8 and back; where
   * it cannot (SQL_ASCII: bytes without an encoding) or Node cannot decode it, the archive's own,
   * and the names travel byte for byte: each byte one character U+0000-U+00FF, converted by the
   * server (serverText and textOfBytes in pg/quote.ts). Always a name of svc's own list, never the archive's text.
   */
  client: string;
}

/** PostgreSQL's server encodings that Node's TextDecoder (WHATWG) reads as PostgreSQL does. */
const WHATWG: Record<string, string> = {
  WIN866: 'ibm866',
  WIN874: 'windows-874',
  WIN1250: 'windows-1250',
  WIN1251: 'windows-1251',
  WIN1253: 'windows-1253',
  WIN1254: 'windows-1254',
  WIN1255: 'windows-1255',
  WIN1256: 'windows-1256',
  WIN1257: 'windows-1257',
  WIN1258: 'windows-1258',
  LATIN2: 'iso-8859-2',
  LATIN3: 'iso-8859-3',
  LATIN4: 'iso-8859-4',
  LATIN6: 'iso-8859-10',
  LATIN7: 'iso-8859-13',
  LATIN8: 'iso-8859-14',
  LATIN9: 'iso-8859-15',
  ISO_8859_5: 'iso-8859-5',
  ISO_8859_6: 'iso-8859-6',
  ISO_8859_7: 'iso-8859-7',
  ISO_8859_8: 'iso-8859-8',
  KOI8R: 'koi8-r',
  KOI8U: 'koi8-u',
  EUC_JP: 'euc-jp',
  EUC_KR: 'euc-kr',
  EUC_CN: 'gbk',
};

/** PostgreSQL's encodings (pg_wchar.h), server and client ones: the only names svc passes to the server. */
const PG_ENCODINGS = new Set(
  (
    'SQL_ASCII EUC_JP EUC_CN EUC_KR EUC_TW EUC_JIS_2004 UTF8 MULE_INTERNAL LATIN1 LATIN2 LATIN3 LATIN4 LATIN5 LATIN6 LATIN7 LATIN8 ' +
    'LATIN9 LATIN10 WIN1256 WIN1258 WIN866 WIN874 KOI8R WIN1251 WIN1252 ISO_8859_5 ISO_8859_6 ISO_8859_7 ISO_8859_8 WIN1250 WIN1253 ' +
    'WIN1254 WIN1255 WIN1257 KOI8U SJIS BIG5 GBK UHC GB18030 JOHAB SHIFT_JIS_2004'
  ).split(' '),
);

const utf8 = new TextDecoder('utf-8');
/** Byte for byte: ISO-8859-1 is each byte as the code point of the same number (the WHATWG "latin1" label is windows-1252). */
const bytes = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

/**
 * WIN1252's bytes 0x80-0x9F (the rest is ISO-8859-1). Node 20's TextDecoder('windows-1252') reads
 * them as ISO-8859-1 does, so "€" (0x80) would become U+0080; bytes WIN1252 leaves undefined stay as they are.
 */
const WIN1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d,
  0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];
const win1252 = (b: Uint8Array) => bytes(b).replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(WIN1252_HIGH[c.charCodeAt(0) - 0x80]!));

export const UTF8_ARCHIVE: ArchiveEncoding = { name: 'UTF8', decode: (b) => utf8.decode(b), client: 'UTF8' };

/** How to read an archive of `name`'s encoding. */
export function archiveEncoding(name: string): ArchiveEncoding {
  const upper = name.toUpperCase().replace(/-/g, '_');
  if (upper === 'UTF8' || upper === 'UTF_8' || upper === 'UNICODE') return UTF8_ARCHIVE;
  // LATIN1 is ISO-8859-1 exactly, byte for byte, which the server converts to and from UTF-8.
  if (upper === 'LATIN1') return { name: upper, decode: bytes, client: 'UTF8' };
  if (upper === 'WIN1252') return { name: upper, decode: win1252, client: 'UTF8' };
  const label = WHATWG[upper];
  if (label) {
    try {
      const decoder = new TextDecoder(label);
      return { name: upper, decode: (b) => decoder.decode(b), client: 'UTF8' };
    } catch {
      // A Node built without full ICU: byte for byte below.
    }
  }
  // A name PostgreSQL does not know (pg_restore would refuse its SET client_encoding): bytes unchanged, as SQL_ASCII passes them.
  const client = [...PG_ENCODINGS].find((e) => e === upper) ?? 'SQL_ASCII';
  return { name: upper, decode: bytes, client };
}

const SET_ENCODING = /^SET client_encoding = '([A-Za-z0-9_-]+)';$/;

/** The encoding a line of pg_restore's script sets, if it is the preamble's `SET client_encoding`. */
export function encodingSetBy(line: string): string | undefined {
  return SET_ENCODING.exec(line)?.[1];
}

/**
 * Splits a byte stream into lines at '\n' (a byte no server encoding uses inside a character) and
 * decodes each with `decode()` as it is then: the script switches it at its `SET client_encoding`.
 */
export class ByteLines {
  #rest: Buffer = Buffer.alloc(0);

  constructor(private readonly onLine: (raw: Buffer) => void) {}

  push(chunk: Buffer): void {
    let data = this.#rest.length ? Buffer.concat([this.#rest, chunk]) : chunk;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
      this.onLine(data.subarray(0, nl > 0 && data[nl - 1] === 0x0d ? nl - 1 : nl));
      data = data.subarray(nl + 1);
    }
    this.#rest = Buffer.from(data);
  }

  end(): void {
    if (this.#rest.length) this.onLine(this.#rest);
    this.#rest = Buffer.alloc(0);
  }
}
