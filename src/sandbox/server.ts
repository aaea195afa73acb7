import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '../api/schemas/errors.js';
import { ARTIFACT_PREFIX, ArtifactServer } from './artifacts.js';
import { Call, HttpError, invalid, type Reply, type SandboxToken } from './call.js';
import type { SandboxData } from './data-model.js';
import { handlers } from './handlers.js';
import { CursorCodec, IdempotencyStore, RateLimiter, UrlSigner } from './keys.js';
import { matchRoute, type OperationName, type RouteDef } from './routes.js';
import { isoSeconds } from './timestamps.js';
import { SandboxWorld } from './world.js';

export const API_PREFIX = '/api/v1';
const MAX_BODY_BYTES = 64 * 1024;

export interface RequestLogEntry {
  method: string;
  /** Path without the query string: presigned signatures stay out of logs. */
  path: string;
  status: number;
  ms: number;
  requestId: string;
  token?: string;
}

export interface SandboxAppOptions {
  now: () => Date;
  baseUrl: () => string;
  onRequest?: (entry: RequestLogEntry) => void;
  /** A response body that fails the client's schema: a sandbox bug, answered as a 500. */
  onInternalError?: (message: string) => void;
}

const newRequestId = () => `req_${randomBytes(12).toString('hex')}`;

const SCOPE_HELP = (scope: string) => `Issue a token with ${scope} in Settings > API tokens.`;

/** The HTTP behaviour of the sandbox, independent of the listening socket. */
export class SandboxApp {
  readonly world: SandboxWorld;
  readonly cursors = new CursorCodec();
  readonly idempotency = new IdempotencyStore();
  readonly rateLimiter = new RateLimiter();
  readonly artifacts: ArtifactServer;
  readonly tokens: SandboxToken[];
  readonly #byToken: Map<string, SandboxToken>;
  readonly now: () => Date;
  readonly baseUrl: () => string;

  constructor(
    readonly data: SandboxData,
    readonly opts: SandboxAppOptions,
  ) {
    this.now = opts.now;
    this.baseUrl = opts.baseUrl;
    this.world = new SandboxWorld(data, opts.now);
    const startedAt = opts.now().getTime();
    this.tokens = data.tokens.map((t) => ({
      ...t,
      ...(t.expiresInSeconds !== undefined ? { expiresAt: isoSeconds(new Date(startedAt + t.expiresInSeconds * 1000)) } : {}),
    }));
    this.#byToken = new Map(this.tokens.map((t) => [t.token, t]));
    this.artifacts = new ArtifactServer({
      fileOf: (key) => this.world.artifactPath(key),
      ttlSeconds: data.artifacts.urlTtlSeconds,
      signer: new UrlSigner(),
      now: opts.now,
    });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = newRequestId();
    res.setHeader('X-Request-ID', requestId);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    } catch {
      this.#send(res, errorReply(invalid('The request target is not a valid URL.'), requestId), requestId);
      return;
    }
    let tokenName: string | undefined;
    res.on('finish', () =>
      this.opts.onRequest?.({
        method: req.method ?? 'GET',
        path: url.pathname,
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
        requestId,
        token: tokenName,
      }),
    );
    try {
      if (url.pathname.startsWith(ARTIFACT_PREFIX)) {
        await this.artifacts.handle(req, res, url, requestId);
        return;
      }
      const rawBody = await readBody(req);
      const reply = this.#api(req, url, rawBody, (t) => {
        tokenName = t.name;
        return this.#rateLimit(t, res);
      });
      this.#send(res, reply, requestId);
    } catch (err) {
      if (err instanceof HttpError) {
        this.#send(res, errorReply(err, requestId), requestId);
        return;
      }
      this.opts.onInternalError?.(`${req.method} ${url.pathname}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) this.#send(res, errorReply(new HttpError(500, 'internal_error', 'Internal error.'), requestId), requestId);
      else res.destroy();
    }
  }

  #api(req: IncomingMessage, url: URL, rawBody: string, admit: (t: SandboxToken) => void): Reply {
    if (url.pathname !== API_PREFIX && !url.pathname.startsWith(`${API_PREFIX}/`)) {
      throw new HttpError(404, 'not_found', `No route ${req.method} ${url.pathname}. The API lives under ${API_PREFIX}.`);
    }
    const token = this.#authenticate(req.headers.authorization);
    admit(token);

    const path = url.pathname.slice(API_PREFIX.length);
    const { match, methods } = matchRoute(req.method ?? 'GET', path);
    if (!match) {
      if (methods.length) {
        throw new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on ${url.pathname}.`, {}, { Allow: methods.join(', ') });
      }
      throw new HttpError(404, 'not_found', `No route ${req.method} ${url.pathname}.`);
    }
    const { route, name, params } = match;
    if (route.scope && !token.profile.scopes.includes(route.scope)) {
      throw new HttpError(403, 'forbidden', 'This API key lacks the scope required for this operation.', {
        requiredScope: route.scope,
        nextAction: SCOPE_HELP(route.scope),
      });
    }
    const query = checkQuery(url, route);
    let idempotencyKey: string | undefined;
    if (route.method === 'POST') {
      idempotencyKey = checkIdempotencyKey(req.headers['idempotency-key']);
    } else if (rawBody.length > 0) {
      throw invalid(`${name} takes no request body.`);
    }
    const reply = handlers[name](new Call(this, token, params, query, path, rawBody, idempotencyKey));
    return this.#checked(name, route, reply);
  }

  #authenticate(header: string | undefined): SandboxToken {
    const m = /^Bearer +(\S+) *$/i.exec(header ?? '');
    const token = m ? this.#byToken.get(m[1]!) : undefined;
    const expired = token?.expiresAt !== undefined && this.now().getTime() >= Date.parse(token.expiresAt);
    if (!token || token.revoked || expired) {
      // One answer for missing, unknown, expired and revoked keys: the caller learns nothing about which.
      throw new HttpError(401, 'unauthorized', 'The API key is missing, expired or revoked.', {}, { 'WWW-Authenticate': 'Bearer realm="svc-sandbox"' });
    }
    return token;
  }

  /** Sets the RateLimit-* headers of every authenticated response; over budget is a 429 with Retry-After. */
  #rateLimit(token: SandboxToken, res: ServerResponse): void {
    const r = this.rateLimiter.take(token.name, token.rateLimit, this.now().getTime());
    res.setHeader('RateLimit-Limit', String(r.limit));
    res.setHeader('RateLimit-Remaining', String(r.remaining));
    res.setHeader('RateLimit-Reset', String(r.resetSeconds));
    if (!r.allowed) {
      throw new HttpError(429, 'rate_limited', 'Rate limit exceeded.', {}, { 'Retry-After': String(r.resetSeconds) });
    }
  }

  /** The sandbox never sends what the client would reject: a body outside the client's schema is a sandbox bug. */
  #checked(name: OperationName, route: RouteDef, reply: Reply): Reply {
    if (reply.status !== route.success) throw new Error(`${name} answered ${reply.status}, expected ${route.success}`);
    const parsed = route.response.safeParse(reply.body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');
      throw new Error(`${name} response fails the client schema: ${issues}`);
    }
    return reply;
  }

  #send(res: ServerResponse, reply: Reply, requestId: string): void {
    const text = `${JSON.stringify(reply.body)}\n`;
    res.writeHead(reply.status, {
      ...reply.headers,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
      'X-Request-ID': requestId,
    });
    res.end(text);
  }
}

function errorReply(err: HttpError, requestId: string): Reply {
  const body = { error: { code: err.code, message: err.message, requestId, ...err.extra } };
  errorBody().parse(body);
  return { status: err.status, body, headers: err.headers };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw invalid(`The request body exceeds ${MAX_BODY_BYTES / 1024} KiB.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Only the operation's own parameters, each at most once. */
function checkQuery(url: URL, route: RouteDef): Map<string, string> {
  const query = new Map<string, string>();
  for (const [key, value] of url.searchParams) {
    if (!route.query.includes(key)) {
      throw invalid(
        route.query.length
          ? `Unknown query parameter "${key}"; this operation accepts ${route.query.join(', ')}.`
          : `This operation takes no query parameters ("${key}" given).`,
      );
    }
    if (query.has(key)) throw invalid(`Query parameter "${key}" is given more than once.`);
    if (value === '') throw invalid(`Query parameter "${key}" is empty.`);
    query.set(key, value);
  }
  return query;
}

function checkIdempotencyKey(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? undefined : header;
  if (value === undefined || value.length < 1 || value.length > 200) {
    throw invalid('The Idempotency-Key header is required on this operation: 1 to 200 characters.');
  }
  return value;
}
