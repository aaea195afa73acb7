import type { Dispatcher } from 'undici';

export type UndiciAgent = Dispatcher & { close(): Promise<void>; destroy(): Promise<void> };

export interface UndiciTransport {
  Agent: new (options: { connections?: number; keepAliveTimeout?: number }) => UndiciAgent;
  /** undici's request(url, options) with `dispatcher` required. */
  request(url: string, options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher }): Promise<Dispatcher.ResponseData>;
}

type ApiRequest = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

const unwrap = <T>(mod: T | { default: T }): T => (mod as { default?: T }).default ?? (mod as T);

/**
 * The one place undici is loaded, lazily: `--help`, `--version` and local errors never pay for it.
 *
 * Only its Agent and request modules are loaded, not its index, which also pulls in fetch,
 * WebSocket, the cache and more (about 50 ms here). And V8 is told to keep llhttp's WebAssembly at
 * its baseline (Liftoff) tier: optimizing it again in the background costs ~60 ms of CPU and ~35 MiB
 * on a 2-core machine, for a process that lives a fraction of a second and whose HTTP parsing
 * (headers and framing; bodies pass through) is nowhere near a bottleneck. Both are measured by
 * `npm run bench`; the pinned undici 7 keeps these module paths stable, and the transport tests
 * would catch a change.
 */
export async function loadUndici(): Promise<UndiciTransport> {
  (await import('node:v8')).setFlagsFromString('--liftoff-only');
  const [agentModule, requestModule] = await Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/api/api-request.js'),
  ]);
  const Agent = unwrap(agentModule) as unknown as UndiciTransport['Agent'];
  const apiRequest = unwrap(requestModule) as unknown as ApiRequest;
  return {
    Agent,
    request(url, { dispatcher, ...options }) {
      const { origin, pathname, search } = new URL(url);
      return apiRequest.call(dispatcher, { ...options, origin, path: `${pathname}${search}` } as Dispatcher.RequestOptions);
    },
  };
}

const READABLE: Record<string, string> = {
  UND_ERR_HEADERS_TIMEOUT: 'ETIMEDOUT',
  UND_ERR_BODY_TIMEOUT: 'ETIMEDOUT',
  UND_ERR_CONNECT_TIMEOUT: 'ETIMEDOUT',
  UND_ERR_SOCKET: 'ECONNRESET',
  UND_ERR_CLOSED: 'ECONNRESET',
};

/**
 * A network failure as the errno-style code people know (ECONNREFUSED, ECONNRESET, ETIMEDOUT).
 * Only the code is ever shown: undici's messages can quote the URL, and a presigned URL is a secret.
 */
export function networkErrorCode(error: unknown, fallback = 'connection failed'): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string') return fallback;
  return READABLE[code] ?? code;
}
