/**
 * A real forward proxy on 127.0.0.1 (the `proxy` package, which undici's own tests use) that logs
 * every request it forwards: "GET http://host:port/path" for absolute-form requests, "CONNECT
 * host:port" for tunnels. With `credentials` it answers 407 unless Proxy-Authorization matches.
 */
import { createServer } from 'node:http';
import { createProxy } from 'proxy';
import { listenOnLoopback } from './ports.js';

export interface ForwardProxy {
  /** http://127.0.0.1:<port>, with user:password@ when started with credentials. */
  url: string;
  host: string;
  log: string[];
  stop(): Promise<void>;
}

export async function startForwardProxy(opts: { credentials?: { user: string; password: string } } = {}): Promise<ForwardProxy> {
  const server = createProxy(createServer());
  const log: string[] = [];
  server.on('request', (req) => log.push(`${req.method} ${req.url}`));
  server.on('connect', (req) => log.push(`CONNECT ${req.url}`));
  if (opts.credentials) {
    const expected = `Basic ${Buffer.from(`${opts.credentials.user}:${opts.credentials.password}`).toString('base64')}`;
    server.authenticate = (req) => req.headers['proxy-authorization'] === expected;
  }
  const host = `127.0.0.1:${await listenOnLoopback(server)}`;
  const auth = opts.credentials ? `${encodeURIComponent(opts.credentials.user)}:${encodeURIComponent(opts.credentials.password)}@` : '';
  return {
    url: `http://${auth}${host}`,
    host,
    log,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
