/**
 * A service that says what another says, with some answers changed: a loopback server
 * (loopback-server.ts) in front of `upstream` (the sandbox) that forwards every request as it came
 * and hands each JSON answer to `rewrite`, which may return a changed body. For the built CLI
 * against a sandbox that echoes a lock token, names a database hostilely or lists one twice.
 */
import { LoopbackServer, type Exchange } from './loopback-server.js';

/** The body to send instead, or undefined to pass the answer on unchanged. */
export type Rewrite = (exchange: Exchange, status: number, body: unknown) => unknown;

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'content-encoding', 'keep-alive']);

export async function startRewritingProxy(upstream: string, rewrite: Rewrite): Promise<LoopbackServer> {
  const server = await new LoopbackServer().start();
  server.otherwise((exchange) => ({
    kind: 'custom',
    handle: (_req, res) =>
      void (async () => {
        const headers = new Headers();
        exchange.headers.forEach((v, k) => (HOP_BY_HOP.has(k) ? undefined : headers.set(k, v)));
        const hasBody = exchange.method !== 'GET' && exchange.method !== 'HEAD';
        const answer = await fetch(`${upstream}${exchange.path}`, {
          method: exchange.method,
          headers,
          body: hasBody ? exchange.body : undefined,
          redirect: 'manual',
        });
        const out: Record<string, string> = {};
        answer.headers.forEach((v, k) => (HOP_BY_HOP.has(k) ? undefined : (out[k] = v)));
        let body = await answer.text();
        if ((answer.headers.get('content-type') ?? '').includes('json') && body) {
          const changed = rewrite(exchange, answer.status, JSON.parse(body));
          if (changed !== undefined) body = JSON.stringify(changed);
        }
        res.writeHead(answer.status, out).end(body);
      })().catch((err: unknown) => res.writeHead(502, { 'content-type': 'text/plain' }).end(String(err))),
  }));
  return server;
}
