import { UsageError } from '../../errors.js';

/**
 * libpq's own reading of a `postgresql://` URI, ported from conninfo_uri_parse_options() and
 * conninfo_uri_parse_params() of PostgreSQL 15's fe-connect.c, so that svc and the children it
 * runs (psql, pg_restore) agree on every setting:
 * - user, password, host, port and database are cut out of the URI first, then percent-decoded
 *   exactly once, byte by byte; `+` stays `+` and `#` is an ordinary character (no fragment);
 * - a component that is empty in the URI is not set at all (the environment or the default applies);
 * - query parameters are decoded the same way and replace earlier settings, the last one winning
 *   (`postgresql://a@h/db?user=b` connects as b);
 * - `ssl=true` means `sslmode=require` (JDBC) and `requiressl` is translated to `sslmode`.
 * pg-connection-string reads URIs the way WHATWG URL does (decodeURI on the path, `#` as a fragment)
 * and opens certificate files while parsing, so it cannot be the reference here.
 *
 * Errors name the part of the URI at fault and never echo it: it may hold a password.
 */

const PREFIXES = ['postgresql://', 'postgres://'];

export function isLibpqUri(text: string): boolean {
  return PREFIXES.some((p) => text.startsWith(p));
}

/**
 * A keyword as it may appear in a message: only when it looks like one, never arbitrary URI text,
 * and never when it holds the URI's password (a malformed pair may be a pasted password).
 */
export function keywordForMessage(keyword: string, password?: string): string | undefined {
  if (password && keyword.includes(password)) return undefined;
  return /^[A-Za-z0-9_.-]{1,64}$/.test(keyword) ? keyword : undefined;
}

/** libpq's conninfo_uri_decode: %XX to a byte, %00 forbidden, then the bytes read as UTF-8. */
function uriDecode(raw: string, what: string): string {
  const src = Buffer.from(raw, 'utf8');
  const out = Buffer.alloc(src.length);
  let n = 0;
  for (let i = 0; i < src.length;) {
    const byte = src[i]!;
    if (byte !== 0x25) {
      out[n++] = byte;
      i += 1;
      continue;
    }
    const hex = src.subarray(i + 1, i + 3).toString('latin1');
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) {
      throw new UsageError(
        `The ${what} in the target URI has an invalid percent-encoding: "%" must be followed by two hex digits.`,
        'Write a literal "%" as %25.',
      );
    }
    const value = Number.parseInt(hex, 16);
    if (value === 0) throw new UsageError(`The ${what} in the target URI contains %00, which libpq refuses.`);
    out[n++] = value;
    i += 3;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(out.subarray(0, n));
  } catch {
    throw new UsageError(`The ${what} in the target URI is not valid UTF-8 once percent-decoded.`);
  }
}

/** conninfo_storeval's translation of the deprecated requiressl (and the JDBC-style ssl=true). */
function store(settings: Map<string, string>, keyword: string, value: string): void {
  if (keyword === 'requiressl') {
    settings.set('sslmode', value.startsWith('1') ? 'require' : 'prefer');
    return;
  }
  settings.delete(keyword); // re-inserted last, so the map's order is the order libpq applied them
  settings.set(keyword, value);
}

function parseQuery(query: string, settings: Map<string, string>): void {
  const pairs = query.split('&');
  // libpq stops at the end of the string, so one trailing "&" (or an empty query) is harmless.
  if (pairs.at(-1) === '') pairs.pop();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.indexOf('=', eq + 1) >= 0) {
      const name = keywordForMessage(eq < 0 ? pair : pair.slice(0, eq), settings.get('password'));
      const which = name ? `The query parameter "${name}" of the target URI` : 'A query parameter of the target URI';
      throw new UsageError(
        eq < 0 ? `${which} has no value: libpq expects name=value pairs joined by "&".` : `${which} has a second "=" in its value.`,
        'Percent-encode "=" inside a value as %3D and "&" as %26 (options=-c%20search_path%3Dsales), as libpq requires.',
      );
    }
    const keyword = uriDecode(pair.slice(0, eq), 'name of a query parameter');
    const value = uriDecode(pair.slice(eq + 1), `value of the query parameter "${keywordForMessage(keyword) ?? '?'}"`);
    if (keyword === 'ssl' && value === 'true') store(settings, 'sslmode', 'require');
    else store(settings, keyword, value);
  }
}

/**
 * Every setting of the URI as libpq stores it: keyword (`user`, `password`, `host`, `port`,
 * `dbname`, or a query keyword, unvalidated) to its decoded value, in the order libpq applied them.
 */
export function parseLibpqUri(uri: string): Map<string, string> {
  const prefix = PREFIXES.find((p) => uri.startsWith(p));
  if (prefix === undefined) throw new UsageError('The target must be a postgresql:// connection URI.');
  if (uri.includes('\0')) throw new UsageError('The target URI contains a NUL character.');
  const settings = new Map<string, string>();
  const s = uri.slice(prefix.length);
  let p = 0;

  // user[:password]@ is there if an '@' comes before the first '/' (libpq's own look-ahead).
  let at = p;
  while (at < s.length && s[at] !== '@' && s[at] !== '/') at++;
  if (s[at] === '@') {
    const colon = s.indexOf(':', p);
    const userEnd = colon >= 0 && colon < at ? colon : at;
    const user = s.slice(p, userEnd);
    if (user) store(settings, 'user', uriDecode(user, 'user name'));
    if (userEnd === colon) {
      const password = s.slice(colon + 1, at);
      if (password) store(settings, 'password', uriDecode(password, 'password'));
    }
    p = at + 1;
  }

  // host[:port] pairs separated by commas; svc refuses lists later, but reads them as libpq does.
  let hosts = '';
  let ports = '';
  let terminator = '';
  for (;;) {
    let host: string;
    if (s[p] === '[') {
      const close = s.indexOf(']', p + 1);
      if (close < 0) throw new UsageError('The target URI has an IPv6 host address without its closing "]".');
      if (close === p + 1) throw new UsageError('The target URI has an empty IPv6 host address "[]".');
      host = s.slice(p + 1, close);
      p = close + 1;
      if (p < s.length && !':/?,'.includes(s[p]!)) {
        throw new UsageError('The target URI has an unexpected character after its IPv6 host address (expected ":", "/", "?" or ",").');
      }
    } else {
      const start = p;
      while (p < s.length && !':/?,'.includes(s[p]!)) p++;
      host = s.slice(start, p);
    }
    hosts += host;
    terminator = s[p] ?? '';
    if (terminator === ':') {
      const start = ++p;
      while (p < s.length && !'/?,'.includes(s[p]!)) p++;
      ports += s.slice(start, p);
      terminator = s[p] ?? '';
    }
    if (terminator !== ',') break;
    p++;
    hosts += ',';
    ports += ',';
  }
  if (hosts) store(settings, 'host', uriDecode(hosts, 'host'));
  if (ports) store(settings, 'port', uriDecode(ports, 'port'));

  if (terminator === '/') {
    const start = ++p;
    while (p < s.length && s[p] !== '?') p++;
    const dbname = s.slice(start, p);
    if (dbname) store(settings, 'dbname', uriDecode(dbname, 'database name'));
    terminator = s[p] ?? '';
  }
  if (terminator === '?') parseQuery(s.slice(p + 1), settings);
  return settings;
}
