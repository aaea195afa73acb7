/** Response bodies are read with a bound (cli-contract 6): memory never follows what a server sends. */
export const API_BODY_LIMIT = 16 * 1024 * 1024;
export const ERROR_BODY_LIMIT = 64 * 1024;

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`body exceeds ${limit} bytes`);
  }
}

interface Body extends AsyncIterable<unknown> {
  destroy(error?: Error): unknown;
}

/**
 * Reads at most `limit` bytes of a body (a response, a file, stdin) as UTF-8. A longer body is
 * destroyed (a response's connection with it) and BodyTooLarge is thrown; with `truncate`, the
 * first `limit` bytes are returned instead.
 */
export async function readBounded(body: Body, limit: number, opts: { truncate?: boolean } = {}): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    // A stream with an encoding set yields strings.
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    if (size + buf.length > limit) {
      chunks.push(buf.subarray(0, limit - size));
      body.destroy();
      if (opts.truncate) break;
      throw new BodyTooLarge(limit);
    }
    chunks.push(buf);
    size += buf.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}
