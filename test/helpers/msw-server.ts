import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse, type RequestHandler } from 'msw';

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

/**
 * msw handlers served over a loopback HTTP server. msw's interceptors cannot see undici's own
 * sockets (mswjs/msw#2165), so instead of intercepting we answer real requests with msw's
 * getResponse(). An unhandled request answers 599 and is recorded, and tests assert there were none:
 * the equivalent of onUnhandledRequest: 'error'.
 */
export class MswLoopback {
  readonly requests: RecordedRequest[] = [];
  readonly unhandled: string[] = [];
  #handlers: RequestHandler[] = [];
  #server: Server | undefined;
  baseUrl = '';

  async start(): Promise<this> {
    this.#server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.#server!.address() as AddressInfo).port}`;
    return this;
  }

  use(...handlers: RequestHandler[]): void {
    this.#handlers = [...handlers, ...this.#handlers];
  }

  reset(): void {
    this.#handlers = [];
    this.requests.length = 0;
    this.unhandled.length = 0;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }

  async #handle(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.baseUrl);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    this.requests.push({ method: req.method ?? 'GET', url, headers, body });
    const request = new Request(url, { method: req.method, headers, body: body && req.method !== 'GET' ? body : undefined });
    const response = await getResponse(this.#handlers, request);
    if (!response) {
      this.unhandled.push(`${req.method} ${url.pathname}${url.search}`);
      res.writeHead(599, { 'content-type': 'text/plain' }).end('unhandled by msw');
      return;
    }
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => (out[k] = v));
    res.writeHead(response.status, out).end(Buffer.from(await response.arrayBuffer()));
  }
}
