import type { Writable } from 'node:stream';

/**
 * Query parameters that are credentials by definition, known to us or not: a presigned URL's
 * signature, its access key id and its session token (S3, and GCS's equivalents). Their values
 * are replaced wherever they appear, so a service echoing another run's presigned URL cannot
 * print a usable one; the rest of the text (and of a --json document) stays exact.
 */
const CREDENTIAL_PARAMS = /\b((?:X-Amz-(?:Signature|Credential|Security-Token)|X-Goog-(?:Signature|Credential))=)[\w%.~/+=-]+/gi;

/**
 * Response fields that carry a secret by the contract's own names (api-v1.md 2.9): a service may
 * echo another run's, which svc could not know (restore get, svc api). The value goes, the key stays.
 */
const SECRET_FIELDS = ['lockToken', 'presignedS3Url'] as const;
/** The same fields in JSON text, for output printed as the service sent it (svc api, piped). */
const SECRET_FIELD_TEXT = new RegExp(`("(?:${SECRET_FIELDS.join('|')})"\\s*:\\s*")(?:[^"\\\\]|\\\\.)*(")`, 'g');

/**
 * A password where it stands as a credential, known to us or not: in a URI's userinfo
 * (`scheme://user:password@`) and as a `password=` parameter (a URI query or a conninfo string,
 * quoted or not). Quotes and whitespace end a match, so a JSON string is never cut open.
 */
const URI_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@"'?#]*):[^/\s@"'?#]*@/gi;
const PASSWORD_PARAM = /(\bpassword\s*=\s*)(?:'(?:[^'\\]|\\.)*'|[^\s&'"]+)/gi;

/**
 * Text none of the credential patterns above can match, and no secret field's name: each needs one
 * of these, which JSON writes as they are, inside a string as outside. One test of it spares the
 * four replacements for nearly every string of a document, and a page of a list its walk.
 */
const MAY_HOLD_CREDENTIAL = /x-(?:amz|goog)-|lockToken|presignedS3Url|:\/\/|password/i;

/** What JSON.stringify writes escaped (quote, backslash, C0 controls, surrogates): a secret's other characters are in the JSON of any string that holds it. */
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A token's random part (the hex of svc_live_<hex>, lk_<hex>): a service may print it alone, and it identifies the token. */
const TOKEN_TAIL = /^[a-z][\w-]*_([0-9a-f]{16,})$/i;

/**
 * The secrets of this run and where credentials stand. Every line svc writes passes through here
 * (scrubbingStream), and every JSON document before it is printed or filtered (scrubDocument):
 * defence in depth behind the rule that messages are built from redacted parts only, and the net
 * for a service that echoes a secret back. Known secrets (API token, lock token, presigned URL, a
 * target URI that holds a password) are long and random, so they are replaced wherever they occur;
 * a DSN password never is, since it may be a common word ("postgres", "true"): it is removed where
 * it stands as a credential, and only there.
 */
export class SecretScrubber {
  readonly #secrets = new Set<string>();
  #sorted: string[] = [];
  /** Per secret, its longest run of characters JSON writes as they are (see mayChangeDocument). */
  #probes: string[] = [];

  add(secret: string | undefined): void {
    if (!secret || secret.length < 4 || this.#secrets.has(secret)) return;
    this.#secrets.add(secret);
    // A secret inside a JSON string is written escaped: look for that form too.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) this.#secrets.add(escaped);
    if (/^https?:\/\//.test(secret)) {
      const q = secret.indexOf('?');
      if (q > 0) this.add(secret.slice(q + 1));
    }
    this.add(TOKEN_TAIL.exec(secret)?.[1]);
    // Longest first, so a URL is replaced whole before its query string is.
    this.#sorted = [...this.#secrets].sort((a, b) => b.length - a.length);
    const probes = this.#sorted.map((secret) => secret.split(JSON_ESCAPED).reduce((a, b) => (b.length > a.length ? b : a)));
    // A text that holds no shorter probe holds no longer one that contains it.
    this.#probes = [...new Set(probes)].filter((p, i, all) => !all.some((q, j) => j !== i && q.length < p.length && p.includes(q)));
  }

  /** A string with every known secret and every credential in place replaced; JSON text stays JSON. */
  scrubKnown(text: string): string {
    let out = text;
    for (const s of this.#sorted) if (out.includes(s)) out = out.split(s).join('[redacted]');
    if (!MAY_HOLD_CREDENTIAL.test(out)) return out;
    return out
      .replace(CREDENTIAL_PARAMS, '$1[redacted]')
      .replace(SECRET_FIELD_TEXT, '$1[redacted]$2')
      .replace(URI_PASSWORD, '$1:[redacted]@')
      .replace(PASSWORD_PARAM, '$1[redacted]');
  }

  /** For messages (stderr, receipts): scrubKnown, and any URL's query string, which may hold a signature known to us or not. */
  scrub(text: string): string {
    return this.scrubKnown(text).replace(/(\bhttps?:\/\/[^\s?"']*)\?[^\s"']*/gi, '$1?[redacted]');
  }

  /**
   * Whether scrubDocument could change a value whose JSON.stringify text is `json`. No: the text
   * holds no known secret's probe (a string that holds a secret holds its probe, and JSON writes
   * the probe as it is), no secret field's name and no credential's marker, so the value prints as
   * it is without its walk. One pass over a page's text costs less than the walk of its items.
   */
  mayChangeDocument(json: string): boolean {
    for (const probe of this.#probes) if (json.includes(probe)) return true;
    return MAY_HOLD_CREDENTIAL.test(json);
  }

  /**
   * A parsed JSON document as it may be printed or handed to --jq: the secret fields' values
   * replaced by key, every other string scrubbed of known secrets, the shape kept. Scrubbing the
   * printed text instead would miss what a jq filter makes of it (`--jq .execution.lockToken`).
   */
  scrubDocument<T>(value: T): T {
    // A part with nothing to scrub is returned as it is, so a long list costs no copy of each item.
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.scrubKnown(v);
      if (v === null || typeof v !== 'object') return v;
      if (Array.isArray(v)) {
        let copy: unknown[] | undefined;
        for (let i = 0; i < v.length; i++) {
          const next = walk(v[i]);
          if (next !== v[i]) (copy ??= v.slice())[i] = next;
        }
        return copy ?? v;
      }
      const record = v as Record<string, unknown>;
      const scrubbed = (key: string) => {
        const child = record[key];
        return (SECRET_FIELDS as readonly string[]).includes(key) && typeof child === 'string' ? '[redacted]' : walk(child);
      };
      // Each child walked once; the entries are made from the first one that changed on.
      let entries: [string, unknown][] | undefined;
      Object.keys(record).forEach((key, i, keys) => {
        const next = scrubbed(key);
        if (entries) entries.push([key, next]);
        else if (next !== record[key]) entries = [...keys.slice(0, i).map((k): [string, unknown] => [k, record[k]]), [key, next]];
      });
      // fromEntries defines each key as its own property: a "__proto__" key stays data.
      return entries ? Object.fromEntries(entries) : v;
    };
    return walk(value) as T;
  }
}

/**
 * `stream` with every write passed through `scrub` first; everything else as it was (ora and the
 * prompts read isTTY, columns and the cursor methods). A secret split across two writes would pass:
 * svc writes whole lines.
 */
export function scrubbingStream<T extends Writable>(stream: T, scrub: (text: string) => string): T {
  const scrubbed = (chunk: unknown, ...rest: unknown[]) =>
    (stream.write as (...a: unknown[]) => boolean)(
      typeof chunk === 'string' ? scrub(chunk) : Buffer.isBuffer(chunk) ? scrub(chunk.toString('utf8')) : chunk,
      ...rest,
    );
  // ora replaces `write` on the stream it draws on and on process.stderr while it spins, and puts
  // the old one back after. Kept here, its write wraps the scrubbing one; passed on to the stream
  // (process.stderr in a terminal), it would become the write that the scrubbing one calls: an
  // endless loop, a stack overflow at the first spinner frame.
  let assigned: unknown;
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return assigned ?? scrubbed;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    set(target, prop, value: unknown) {
      if (prop !== 'write') return Reflect.set(target, prop, value, target);
      assigned = value === scrubbed ? undefined : value;
      return true;
    },
  });
}
