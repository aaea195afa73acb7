/**
 * The one place undici is loaded, lazily: `--help`, `--version` and local errors never pay for it.
 * undici is CommonJS: its exports arrive as named exports from tsc output, under `default` from the bundle.
 */
export async function loadUndici(): Promise<typeof import('undici')> {
  const mod = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  return typeof mod.Agent === 'function' ? mod : mod.default!;
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
