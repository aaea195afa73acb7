/**
 * The one HTTP server harness of the suite: a real HTTP/1.1 server on 127.0.0.1 that records every
 * request (headers, body, the TCP connection it came on) and answers, in this order, from a script
 * of replies, from msw handlers (`use`, as in the command tests: msw's interceptors cannot see
 * undici's own sockets, mswjs/msw#2165, so real requests are answered with msw's getResponse()),
 * or from a fallback. A request none of them answers gets 599 and is listed in `unhandled`, so a
 * test cannot pass on an unexpected extra request: msw's onUnhandledRequest: 'error'.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { getResponse, type RequestHandler } from 'msw';
import { freePort, listenOnLoopback } from './ports.js';

/** One request as it arrived on the wire. */
export interface Exchange {
  method: string;
  /** Path and query string, e.g. /api/v1/databases?cursor=cur_db_2 */
  path: string;
  url: URL;
  headers: Headers;
  body: string;
  /** 1-based number of the TCP connection the request came on: equal numbers mean the same socket. */
  connection: number;
  remotePort: number | undefined;
}

/** What the server does with one request. */
export type Reply =
  | { kind: 'respond'; status: number; headers: Record<string, string>; body: string; delayMs?: number }
  /** Close the connection without answering (a reset mid-request). */
  | { kind: 'drop' }
  /** Never answer; the socket stays open until the client gives up or the server stops. */
  | { kind: 'hang' }
  /** Send the status line, headers and part of the body, then go silent. */
  | { kind: 'stall'; status: number; headers: Record<string, string>; partialBody: string }
  /** Full control of the raw response, for misbehaviour the other kinds cannot express. */
  | { kind: 'custom'; handle: (req: IncomingMessage, res: ServerResponse) => void };

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { kind: 'respond', status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

export function redirect(status: number, location: string): Reply {
  return { kind: 'respond', status, headers: { location, 'content-type': 'text/plain' }, body: `see ${location}` };
}

export function delayed(delayMs: number, reply: Reply): Reply {
  if (reply.kind !== 'respond') throw new Error('only a response can be delayed');
  return { ...reply, delayMs };
}

export const drop = (): Reply => ({ kind: 'drop' });
export const hang = (): Reply => ({ kind: 'hang' });
export const stall = (status: number, partialBody: string): Reply => ({
  kind: 'stall',
  status,
  headers: { 'content-type': 'application/json', 'content-length': String(partialBody.length + 100) },
  partialBody,
});

export class LoopbackServer {
  readonly exchanges: Exchange[] = [];
  readonly unhandled: string[] = [];
  /** TCP connections accepted so far. */
  connections = 0;
  baseUrl = '';
  port = 0;

  #server: Server | undefined;
  #script: Reply[] = [];
  #handlers: RequestHandler[] = [];
  #fallback: ((exchange: Exchange) => Reply | undefined) | undefined;
  readonly #socketIds = new WeakMap<Socket, number>();
  readonly #timers = new Set<NodeJS.Timeout>();

  async start(): Promise<this> {
    const server = createServer((req, res) => void this.#handle(req, res));
    server.on('connection', (socket: Socket) => {
      this.connections += 1;
      this.#socketIds.set(socket, this.connections);
    });
    this.port = await listenOnLoopback(server);
    this.#server = server;
    this.baseUrl = `http://127.0.0.1:${this.port}`;
    return this;
  }

  /** Queues replies for the next requests, in order; they come before handlers and the fallback. */
  script(...replies: Reply[]): this {
    this.#script.push(...replies);
    return this;
  }

  /** msw handlers for the requests the script does not cover; later calls take precedence. */
  use(...handlers: RequestHandler[]): this {
    this.#handlers = [...handlers, ...this.#handlers];
    return this;
  }

  /** Answers every request that neither the script nor a handler covers. */
  otherwise(handler: (exchange: Exchange) => Reply | undefined): this {
    this.#fallback = handler;
    return this;
  }

  /** Forgets script, handlers, fallback and records (between tests). */
  reset(): void {
    this.#script = [];
    this.#handlers = [];
    this.#fallback = undefined;
    this.exchanges.length = 0;
    this.unhandled.length = 0;
  }

  async stop(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', this.baseUrl);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const exchange: Exchange = {
      method: req.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      url,
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
      connection: this.#socketIds.get(req.socket) ?? -1,
      remotePort: req.socket.remotePort,
    };
    this.exchanges.push(exchange);
    const reply = this.#script.shift() ?? (await this.#fromHandlers(exchange)) ?? this.#fallback?.(exchange);
    if (!reply) {
      this.unhandled.push(`${exchange.method} ${exchange.path}`);
      res.writeHead(599, { 'content-type': 'text/plain' }).end('unhandled request');
      return;
    }
    this.#reply(req, res, reply);
  }

  async #fromHandlers(exchange: Exchange): Promise<Reply | undefined> {
    if (this.#handlers.length === 0) return undefined;
    const body = exchange.body && exchange.method !== 'GET' ? exchange.body : undefined;
    const response = await getResponse(this.#handlers, new Request(exchange.url, { method: exchange.method, headers: exchange.headers, body }));
    if (!response) return undefined;
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => (out[k] = v));
    return { kind: 'respond', status: response.status, headers: out, body: Buffer.from(await response.arrayBuffer()).toString('utf8') };
  }

  #reply(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
    switch (reply.kind) {
      case 'drop':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'custom':
        reply.handle(req, res);
        return;
      case 'stall':
        res.writeHead(reply.status, reply.headers);
        res.write(reply.partialBody);
        return;
      case 'respond': {
        const send = () => {
          if (!res.destroyed) res.writeHead(reply.status, reply.headers).end(reply.body);
        };
        if (!reply.delayMs) return send();
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          send();
        }, reply.delayMs);
        this.#timers.add(timer);
      }
    }
  }
}

/**
 * A loopback port nothing listens on: connecting to it is refused. One below the ephemeral range
 * (ports.ts), so no other test's listen on port 0 is handed it before the test connects.
 */
export const closedPort = freePort;
