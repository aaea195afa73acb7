/** What to do next, per status, when the service's own nextAction does not say. */
export function errorHint(status: number, method: string, retryAfterMs: number | undefined): string | undefined {
  switch (status) {
    case 400:
      return 'The service rejected the request as invalid; check the arguments (`--help` has examples).';
    case 401:
      return 'Run `svc auth login`, or set SVC_API_KEY to a valid token.';
    case 403:
      return 'Ask an organization admin for a token with the required scope.';
    case 404:
      return 'Check the id. Resources of another organization answer exactly like missing ones.';
    case 409:
      return method === 'POST'
        ? 'Either a request with the same idempotency key is still in flight, or the key was reused with a different body. Wait and retry, or use a new --idempotency-key.'
        : undefined;
    case 412:
      return 'The operation is not safe until the precondition named above is resolved.';
    case 429:
      return retryAfterMs !== undefined
        ? `Rate limited: try again in ${Math.ceil(retryAfterMs / 1000)}s.`
        : 'Rate limited: wait a moment and try again.';
    default:
      return status >= 500 ? 'The service is unavailable or failed internally; try again later and quote the request id to support.' : undefined;
  }
}
