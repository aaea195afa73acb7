import { readProxySettings } from './proxy-settings.js';

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy a request to `origin` goes through under `env`, as undici's EnvHttpProxyAgent picks it
 * (NO_PROXY entries match the host or its subdomains, with an optional port; `*` matches all), or
 * undefined for a direct connection. Only for messages: the proxy's host:port and the variable it
 * came from, never its credentials.
 */
export function proxyFor(origin: string, env: Record<string, string | undefined>): { host: string; variable: string } | undefined {
  const url = new URL(origin);
  const settings = readProxySettings(env);
  const proxy = url.protocol === 'https:' ? (settings.https ?? settings.http) : settings.http;
  if (!proxy) return undefined;
  const hostname = url.hostname.toLowerCase();
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of settings.noProxy.split(/[,\s]/).filter(Boolean)) {
    if (entry === '*') return undefined;
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (m && Number(m[2]) !== port) continue;
    if (hostname === name || hostname.endsWith(`.${name}`)) return undefined;
  }
  return { host: new URL(proxy.url).host, variable: proxy.variable };
}
