import type { OutgoingHttpHeaders } from 'node:http';
import type * as z from '../zod.js';
import type { PublicApiProfile } from '../api/schemas/profile.js';
import type { ListName, SandboxTokenDef } from './data-model.js';
import { canonicalJson, type StoredReply } from './keys.js';
import type { SandboxApp } from './server.js';
import type { Keyed, SandboxWorld } from './world.js';

/** api-v1.md 4.2 leaves the bounds open; the sandbox takes 1..100. */
const MAX_LIMIT = 100;

/** An API error answer: the body of api-v1.md 2.12. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: { requiredScope?: string; nextAction?: string } = {},
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(message);
  }
}

export const invalid = (message: string) => new HttpError(400, 'invalid_request', message);
export const notFound = (what: string) => new HttpError(404, 'not_found', `${what} not found.`);

export interface Reply {
  status: number;
  body: unknown;
  headers?: OutgoingHttpHeaders;
}

export interface SandboxToken extends SandboxTokenDef {
  expiresAt?: string;
}

export function profileOf(t: SandboxToken): PublicApiProfile {
  return { ...t.profile, ...(t.expiresAt ? { expiresAt: t.expiresAt } : {}) };
}

/** What an operation handler gets: the authenticated caller, its validated inputs, and the sandbox. */
export class Call {
  constructor(
    readonly app: SandboxApp,
    readonly token: SandboxToken,
    readonly params: Record<string, string>,
    readonly query: Map<string, string>,
    readonly path: string,
    readonly rawBody: string,
    readonly idempotencyKey: string | undefined,
  ) {}

  get org(): string {
    return this.token.profile.organizationId;
  }

  get world(): SandboxWorld {
    return this.app.world;
  }

  param(name: string): string {
    return this.params[name]!;
  }

  /** The request body checked with the project's own (strict) request schema. */
  body<S extends z.ZodMiniType>(schema: S): z.infer<S> {
    let json: unknown;
    try {
      json = JSON.parse(this.rawBody);
    } catch {
      throw invalid('The request body must be a JSON object.');
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`).join('; ');
      throw invalid(`Invalid request body: ${issues}.`);
    }
    return parsed.data;
  }

  /** `limit`: an integer 1..100; absent = the list's default page size. */
  limit(list: ListName): number {
    const raw = this.query.get('limit');
    const { pageSize } = this.app.data;
    if (raw === undefined) return pageSize.perList[list] ?? pageSize.default;
    const max = Math.min(MAX_LIMIT, pageSize.max);
    if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
      throw invalid(`limit must be an integer from 1 to ${max}.`);
    }
    return Number(raw);
  }

  /**
   * One keyset page. The cursor is verified here, so callers check ownership first (api-v1.md 4.1:
   * a foreign database is a 404, and a foreign listEvidence filter an empty page, before the cursor).
   */
  page<T>(list: ListName, filter: string, items: Keyed<T>[], limit: number, order: 'asc' | 'desc' = 'asc'): { items: T[]; nextCursor: string | null } {
    const scope = { list, organizationId: this.org, filter };
    const raw = this.query.get('cursor');
    let rest = items;
    if (raw !== undefined) {
      const after = this.app.cursors.verify(raw, scope);
      if (after === undefined) throw invalid('cursor is not a cursor this service issued for this list.');
      rest = items.filter((i) => (order === 'desc' ? i.seq < after : i.seq > after));
    }
    const pageItems = rest.slice(0, limit);
    const last = pageItems.at(-1);
    const nextCursor = rest.length > limit && last ? this.app.cursors.issue(scope, last.seq) : null;
    return { items: pageItems.map((i) => i.value), nextCursor };
  }

  /**
   * Runs a mutation once per idempotency key: the same key with the same body answers the original
   * 2xx again; with another body (or on another route) it is a 409.
   */
  once(body: unknown, run: () => Reply): Reply {
    const key = this.idempotencyKey!;
    const fingerprint = `${this.path}\n${canonicalJson(body)}`;
    const seen = this.app.idempotency.lookup(this.token.name, key, fingerprint);
    if (seen.kind === 'conflict') {
      throw new HttpError(409, 'conflict', 'This idempotency key was already used with a different request body.', {
        nextAction: 'Use a new Idempotency-Key for a different request.',
      });
    }
    if (seen.kind === 'replay') return { ...seen.reply, headers: { 'Idempotent-Replayed': 'true' } };
    const reply = run();
    if (reply.status >= 200 && reply.status < 300) {
      this.app.idempotency.remember(this.token.name, key, fingerprint, { status: reply.status, body: structuredClone(reply.body) } satisfies StoredReply);
    }
    return reply;
  }

  presign(artifactKey: string): string {
    return this.app.artifacts.presign(this.app.baseUrl(), artifactKey);
  }
}

export type Handler = (call: Call) => Reply;
