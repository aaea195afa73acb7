import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as it arrived on the wire. */
export interface Exchange {
  method: string;
  /** Path and query string, e.g. /api/v1/databases?cursor=cur_db_2 */
  path: string;
  url: URL;
  headers: IncomingHttpHeaders;
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
  | { kind: 'stall'; status: number; headers: Record<string, string>; partialBody: string };

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

/**
 * A real HTTP/1.1 server on 127.0.0.1 for transport tests: it answers from a script (one reply per
 * request, in order) or, once the script is used up, from a fallback handler, and records each
 * request's headers, body and the connection it came on. A request with neither is answered 599 and
 * listed in `unscripted`, so a test cannot pass on an unexpected extra request.
 */
export class LoopbackServer {
  readonly exchanges: Exchange[] = [];
  readonly unscripted: string[] = [];
  /** TCP connections accepted so far. */
  connections = 0;
  baseUrl = '';
  port = 0;

  #server: Server | undefined;
  #script: Reply[] = [];
  #fallback: ((exchange: Exchange) => Reply) | undefined;
  readonly #socketIds = new WeakMap<Socket, number>();
  readonly #timers = new Set<NodeJS.Timeout>();

  async start(): Promise<this> {
    const server = createServer((req, res) => void this.#handle(req, res));
    server.on('connection', (socket: Socket) => {
      this.connections += 1;
      this.#socketIds.set(socket, this.connections);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.port = (server.address() as AddressInfo).port;
    this.baseUrl = `http://127.0.0.1:${this.port}`;
    return this;
  }

  /** Queues replies for the next requests, in order. */
  script(...replies: Reply[]): this {
    this.#script.push(...replies);
    return this;
  }

  /** Answers every request the script does not cover. */
  otherwise(handler: (exchange: Exchange) => Reply): this {
    this.#fallback = handler;
    return this;
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
    const exchange: Exchange = {
      method: req.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      url,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      connection: this.#socketIds.get(req.socket) ?? -1,
      remotePort: req.socket.remotePort,
    };
    this.exchanges.push(exchange);
    const reply = this.#script.shift() ?? this.#fallback?.(exchange);
    if (!reply) {
      this.unscripted.push(`${exchange.method} ${exchange.path}`);
      res.writeHead(599, { 'content-type': 'text/plain' }).end('unscripted request');
      return;
    }
    switch (reply.kind) {
      case 'drop':
        req.socket.destroy();
        return;
      case 'hang':
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

/** A loopback port nothing listens on: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
