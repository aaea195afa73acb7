import { UsageError } from '../errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

function isLoopbackHost(hostname: string): boolean {
  if (LOOPBACK_HOSTS.has(hostname)) return true;
  return /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Validates the service root and returns it without a trailing slash.
 * http:// is for loopback only (cli-contract 1): anywhere else the bearer token would cross the network in clear.
 */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError('The base URL is not a valid URL.', 'Pass it as https://host[:port], e.g. --base-url https://backup.example.com');
  }
  if (url.username || url.password) {
    throw new UsageError('The base URL must not contain credentials.', 'Use `svc auth login` or SVC_API_KEY for the token.');
  }
  if (url.search || url.hash) {
    throw new UsageError('The base URL must not contain a query string or fragment.');
  }
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(url.hostname)) {
      throw new UsageError(
        `Refusing plain http:// to ${url.hostname}: the API token would travel unencrypted.`,
        'Use https://, or http:// only for a loopback host (127.0.0.1, localhost, [::1]).',
      );
    }
  } else if (url.protocol !== 'https:') {
    throw new UsageError(`Unsupported base URL scheme ${url.protocol}`, 'Use https://host[:port].');
  }
  return url.href.replace(/\/+$/, '');
}
