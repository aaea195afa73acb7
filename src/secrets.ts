import type { Writable } from 'node:stream';

/**
 * Query parameters that are credentials by definition, known to us or not: a presigned URL's
 * signature, its access key id and its session token (S3, and GCS's equivalents). Their values
 * are replaced wherever they appear, so a service echoing another run's presigned URL cannot
 * print a usable one; the rest of the text (and of a --json document) stays exact.
 */
const CREDENTIAL_PARAMS = /\b((?:X-Amz-(?:Signature|Credential|Security-Token)|X-Goog-(?:Signature|Credential))=)[\w%.~/+=-]+/gi;

/**
 * A lock token in a JSON document, by its field name: a service may echo another run's, which svc
 * could not know (restore get, svc api). The contract's own field name; the value goes, the key stays.
 */
const LOCK_TOKEN_FIELD = /("lockToken"\s*:\s*")(?:[^"\\]|\\.)*(")/g;

/** A token's random part (the hex of svc_live_<hex>, lk_<hex>): a service may print it alone, and it identifies the token. */
const TOKEN_TAIL = /^[a-z][\w-]*_([0-9a-f]{16,})$/i;

/**
 * Known secrets of this run (API token, lock token, presigned URL, DSN password). Every line svc
 * writes passes through here (scrubbingStream): defence in depth behind the rule that messages are
 * built from redacted parts only, and the net for a service that echoes a secret back.
 */
export class SecretScrubber {
  readonly #secrets = new Set<string>();
  #sorted: string[] = [];

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
  }

  /** Replaces every known secret, the value of every credential query parameter and every lockToken field. */
  scrubKnown(text: string): string {
    let out = text;
    for (const s of this.#sorted) if (out.includes(s)) out = out.split(s).join('[redacted]');
    return out.replace(CREDENTIAL_PARAMS, '$1[redacted]').replace(LOCK_TOKEN_FIELD, '$1[redacted]$2');
  }

  /** Known secrets, and any URL's query string and userinfo password, which may hold a signature or password known to us or not. */
  scrub(text: string): string {
    return this.scrubKnown(text)
      .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^/\s@]*@/gi, '$1:[redacted]@')
      .replace(/(\bhttps?:\/\/[^\s?"']*)\?[^\s"']*/gi, '$1?[redacted]');
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
