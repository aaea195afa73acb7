/**
 * Known secrets of this run (API token, lock token, presigned URL, DSN password). Every error and
 * every piece of child-process output passes through scrub() before it is printed: defence in depth
 * behind the rule that messages are built from redacted parts only.
 */
export class SecretScrubber {
  readonly #secrets = new Set<string>();

  add(secret: string | undefined): void {
    if (secret && secret.length >= 4) this.#secrets.add(secret);
    if (secret && /^https?:\/\//.test(secret)) {
      const q = secret.indexOf('?');
      if (q > 0) this.add(secret.slice(q + 1));
    }
  }

  scrub(text: string): string {
    let out = text;
    // Longest first, so a URL is replaced whole before its query string is.
    for (const s of [...this.#secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join('[redacted]');
    // Any URL's query string and userinfo password may hold a signature or password, known to us or not.
    out = out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^/\s@]*@/gi, '$1:[redacted]@');
    out = out.replace(/(\bhttps?:\/\/[^\s?"']*)\?[^\s"']*/gi, '$1?[redacted]');
    return out;
  }
}
