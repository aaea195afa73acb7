import { proxySettings } from './undici.js';

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy a request to `origin` goes through under `env`, as undici's EnvHttpProxyAgent picks it
 * (NO_PROXY entries match the host or its subdomains, with an optional port; `*` matches all), or
 * undefined for a direct connection. Only for messages: the proxy's host:port and the variable it
 * came from, never its credentials.
 */
export function proxyFor(origin: string, env: Record<string, string | undefined>): { host: string; variable: string } | undefined {
  const url = new URL(origin);
  const { httpProxy, httpsProxy, noProxy } = proxySettings(env);
  const proxy = url.protocol === 'https:' ? httpsProxy || httpProxy : httpProxy;
  if (!proxy) return undefined;
  const hostname = url.hostname.toLowerCase();
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of noProxy.split(/[,\s]/).filter(Boolean)) {
    if (entry === '*') return undefined;
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (m && Number(m[2]) !== port) continue;
    if (hostname === name || hostname.endsWith(`.${name}`)) return undefined;
  }
  const variable =
    url.protocol === 'https:' && httpsProxy
      ? env.https_proxy !== undefined ? 'https_proxy' : 'HTTPS_PROXY'
      : env.http_proxy !== undefined ? 'http_proxy' : 'HTTP_PROXY';
  let host: string;
  try {
    host = new URL(proxy).host;
  } catch {
    host = '(unparsable proxy URL)';
  }
  return { host, variable };
}
