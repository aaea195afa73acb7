import { CliError } from '../errors.js';
import { proxyFor } from './proxy.js';
import { errorCodes, networkErrorCode } from './undici.js';

/** Node's certificate verification failures: the host's chain is not trusted from here. */
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export interface FailedRequest {
  method: string;
  path: string;
  /** Where the request went: the API base URL, or the artifact's origin (never its full URL). */
  origin: string;
  /** Who was asked, for the message: "the service", "the artifact store". */
  peer: string;
  timedOut: boolean;
  timeoutMs: number;
  env: Record<string, string | undefined>;
}

/**
 * A request that got no HTTP answer, as the error a person can act on: a timeout, an untrusted
 * certificate (name the host and NODE_EXTRA_CA_CERTS), an unreachable proxy (its host, never its
 * credentials), or the network. Only error codes are used: undici's messages can quote a URL.
 */
export function networkFailure(error: unknown, req: FailedRequest): CliError {
  const host = new URL(req.origin).host;
  if (req.timedOut) return new CliError('timeout', `${req.method} ${req.path} timed out after ${req.timeoutMs / 1000}s (${host}).`);
  const codes = errorCodes(error);
  const tls = codes.find((c) => TLS_CODES.has(c));
  if (tls) {
    return new CliError('tls_failed', `The TLS certificate of ${host} is not trusted here (${tls}).`, {
      hint: `If ${host} uses a private certificate authority, set NODE_EXTRA_CA_CERTS to its PEM file and run the command again.`,
    });
  }
  const proxy = proxyFor(req.origin, req.env);
  // undici answers a proxy's 407 with an error of its own: "Proxy Authentication Required (407)".
  if (proxy && /\(407\)/.test((error as Error)?.message ?? '')) {
    return new CliError('proxy_failed', `The proxy ${proxy.host} refused the request: it wants credentials (HTTP 407).`, {
      hint: `Put the proxy's user and password in ${proxy.variable} (http://user:password@host:port), or name ${host} in NO_PROXY.`,
    });
  }
  if (proxy) {
    return new CliError(
      'proxy_failed',
      `Could not reach ${req.peer} at ${host} through the proxy ${proxy.host} (from ${proxy.variable}): ${networkErrorCode(error)}.`,
    );
  }
  return new CliError('connection_failed', `Could not reach ${req.peer} at ${host}: ${networkErrorCode(error)}.`);
}
