import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ListName } from './data-model.js';

/** What a cursor is bound to: a cursor of one list, organization or filter is refused by every other. */
export interface CursorScope {
  list: ListName;
  organizationId: string;
  filter: string;
}

function mac(key: Buffer, text: string, bytes = 16): Buffer {
  return createHmac('sha256', key).update(text).digest().subarray(0, bytes);
}

/**
 * Opaque keyset cursors: the last item's position, MACed with a key that lives as long as this sandbox.
 * A cursor the sandbox did not issue (edited, from another list or organization, or from an earlier run) is a 400.
 */
export class CursorCodec {
  readonly #key = randomBytes(32);

  issue(scope: CursorScope, seq: number): string {
    const position = Buffer.from(String(seq)).toString('base64url');
    return `${position}.${mac(this.#key, this.#text(scope, seq)).toString('base64url')}`;
  }

  /** The position after which the next page starts, or undefined for a cursor this sandbox did not issue. */
  verify(cursor: string, scope: CursorScope): number | undefined {
    const m = /^([A-Za-z0-9_-]{1,16})\.([A-Za-z0-9_-]{22})$/.exec(cursor);
    if (!m) return undefined;
    const seqText = Buffer.from(m[1]!, 'base64url').toString('utf8');
    if (!/^\d{1,9}$/.test(seqText)) return undefined;
    const seq = Number(seqText);
    const given = Buffer.from(m[2]!, 'base64url');
    const expected = mac(this.#key, this.#text(scope, seq));
    return given.length === expected.length && timingSafeEqual(given, expected) ? seq : undefined;
  }

  #text(scope: CursorScope, seq: number): string {
    return `cursor\n${scope.list}\n${scope.organizationId}\n${scope.filter}\n${seq}`;
  }
}

/** Fixed-window request budget per token (api-v1.md 8 leaves the numbers open; the sandbox's are in settings.json). */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  take(
    token: string,
    budget: { limit: number; windowSeconds: number },
    nowMs: number,
  ): { allowed: boolean; limit: number; remaining: number; resetSeconds: number } {
    const windowMs = budget.windowSeconds * 1000;
    let w = this.#windows.get(token);
    if (!w || nowMs >= w.start + windowMs) {
      w = { start: nowMs, count: 0 };
      this.#windows.set(token, w);
    }
    const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - nowMs) / 1000));
    if (w.count >= budget.limit) return { allowed: false, limit: budget.limit, remaining: 0, resetSeconds };
    w.count++;
    return { allowed: true, limit: budget.limit, remaining: budget.limit - w.count, resetSeconds };
  }
}

export interface StoredReply {
  status: number;
  body: unknown;
}

/** Sorted keys, so the same JSON body with another key order or spacing is the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Idempotency keys, one map per token, remembered for the sandbox's lifetime. Only accepted (2xx)
 * requests are remembered: a rejected request can be retried with the same key once it is fixed.
 */
export class IdempotencyStore {
  readonly #byToken = new Map<string, Map<string, { fingerprint: string; reply: StoredReply }>>();

  lookup(token: string, key: string, fingerprint: string): { kind: 'new' } | { kind: 'replay'; reply: StoredReply } | { kind: 'conflict' } {
    const seen = this.#byToken.get(token)?.get(key);
    if (!seen) return { kind: 'new' };
    return seen.fingerprint === fingerprint ? { kind: 'replay', reply: seen.reply } : { kind: 'conflict' };
  }

  remember(token: string, key: string, fingerprint: string, reply: StoredReply): void {
    let map = this.#byToken.get(token);
    if (!map) this.#byToken.set(token, (map = new Map()));
    map.set(key, { fingerprint, reply });
  }
}

/** Presigned artifact URLs in the shape of S3's query-string authentication. */
export class UrlSigner {
  readonly #key = randomBytes(32);

  sign(artifactKey: string, amzDate: string, expiresSeconds: number): string {
    return createHmac('sha256', this.#key).update(`artifact\n${artifactKey}\n${amzDate}\n${expiresSeconds}`).digest('hex');
  }

  verify(artifactKey: string, amzDate: string, expiresSeconds: number, signature: string): boolean {
    const expected = Buffer.from(this.sign(artifactKey, amzDate, expiresSeconds), 'hex');
    const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
