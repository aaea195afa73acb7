import { UsageError } from '../errors.js';

type Env = Record<string, string | undefined>;

/** A proxy to use: its URL as undici gets it, and the variable it was read from (for messages). */
export interface ProxySetting {
  url: string;
  variable: string;
}

export interface ProxySettings {
  http: ProxySetting | undefined;
  https: ProxySetting | undefined;
  noProxy: string;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The proxy settings of `env`, read as curl reads them: lower case first, and a value without a
 * scheme (`127.0.0.1:3128`, `user:pw@proxy:3128`) is an http:// proxy. The one place proxy
 * variables are read: a value svc cannot use is a usage error naming the variable, before any
 * request, and its message never quotes the value (it may hold a password).
 */
export function readProxySettings(env: Env): ProxySettings {
  return {
    http: proxySetting(env, 'http_proxy', 'HTTP_PROXY'),
    https: proxySetting(env, 'https_proxy', 'HTTPS_PROXY'),
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  };
}

function proxySetting(env: Env, lower: string, upper: string): ProxySetting | undefined {
  const variable = env[lower] !== undefined ? lower : upper;
  const value = env[variable]?.trim();
  if (!value) return undefined;
  return { url: proxyUrl(SCHEME.test(value) ? value : `http://${value}`, variable), variable };
}

/** The proxy's scheme, credentials, host and port; a path or query means nothing for a proxy (nor to curl). */
function proxyUrl(value: string, variable: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw unusable(variable, 'it is not a URL (a bad port or an empty host are the usual causes)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw unusable(variable, `svc speaks to http:// and https:// proxies only, not ${url.protocol}//`);
  }
  if (!url.hostname) throw unusable(variable, 'it names no host');
  if (url.port === '0') throw unusable(variable, 'port 0 is not a port a proxy listens on');
  const auth = url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol}//${auth}${url.host}`;
}

function unusable(variable: string, why: string): UsageError {
  return new UsageError(
    `${variable} is not a proxy svc can use: ${why}.`,
    `Set ${variable} to host:port or http://host:port (user:password@host:port for a proxy that wants a login), or unset it; nothing was sent.`,
  );
}
