import type { Writable } from 'node:stream';

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
    // Longest first, so a URL is replaced whole before its query string is.
    this.#sorted = [...this.#secrets].sort((a, b) => b.length - a.length);
  }

  /** Replaces every known secret. */
  scrubKnown(text: string): string {
    let out = text;
    for (const s of this.#sorted) if (out.includes(s)) out = out.split(s).join('[redacted]');
    return out;
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
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') {
        return (chunk: unknown, ...rest: unknown[]) =>
          (target.write as (...a: unknown[]) => boolean)(
            typeof chunk === 'string' ? scrub(chunk) : Buffer.isBuffer(chunk) ? scrub(chunk.toString('utf8')) : chunk,
            ...rest,
          );
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
