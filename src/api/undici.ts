import type { Dispatcher } from 'undici';
import { readProxySettings } from './proxy-settings.js';

type Env = Record<string, string | undefined>;

export type HttpDispatcher = Dispatcher & { close(): Promise<void>; destroy(error?: Error): Promise<void> };

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher };

export interface Transport {
  /**
   * A dispatcher for one purpose (the API, or the artifact download): proxies from `env`, like curl.
   * Throws a UsageError naming the variable when a proxy setting cannot be used.
   */
  dispatcher(env: Env, opts: { connections: number; keepAliveTimeout: number }): HttpDispatcher;
  /** One request to `url` on `opts.dispatcher`, as undici's request(url, opts) makes it. */
  request(url: string, opts: RequestOptions): Promise<Dispatcher.ResponseData>;
}

/** The proxy settings of `env` as undici takes them; '' (not undefined) keeps undici off process.env. */
function proxySettings(env: Env): { httpProxy: string; httpsProxy: string; noProxy: string } {
  const { http, https, noProxy } = readProxySettings(env);
  return { httpProxy: http?.url ?? '', httpsProxy: https?.url ?? '', noProxy };
}

let loaded: Promise<Transport> | undefined;

/**
 * The one place undici is loaded (./undici-core.ts: only the modules svc uses), on the first
 * request: `--help`, `--version`, completion and local errors never pay for it. Every dispatcher
 * is an EnvHttpProxyAgent, so HTTPS_PROXY / HTTP_PROXY / NO_PROXY apply to API calls and artifact
 * downloads alike (cli-contract 1); without a proxy it is a plain Agent.
 */
export function loadTransport(): Promise<Transport> {
  loaded ??= import('./undici-core.js').then(({ EnvHttpProxyAgent }) => ({
    request: (url, { dispatcher, ...opts }) => {
      const { origin, pathname, search } = new URL(url);
      return dispatcher.request({ ...opts, origin, path: `${pathname}${search}` });
    },
    dispatcher: (env, opts) =>
      new EnvHttpProxyAgent({
        ...proxySettings(env),
        connections: opts.connections,
        keepAliveTimeout: opts.keepAliveTimeout,
        // curl's behaviour: an http:// origin goes through the proxy as an absolute-form request,
        // https:// through a CONNECT tunnel.
        proxyTunnel: false,
      }) as HttpDispatcher,
  }));
  return loaded;
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
  const code = errorCodes(error)[0];
  return code === undefined ? fallback : (READABLE[code] ?? code);
}

/** The `code` of an error and of its causes, outermost first: undici wraps the socket's own error. */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let err = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; err && depth < 5; depth++) {
    if (typeof err.code === 'string') codes.push(err.code);
    err = err.cause as typeof err;
  }
  return codes;
}
