import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** False when the connection closed before the whole body (per Content-Length) arrived. */
  complete: boolean;
}

/**
 * A bare node:http request on a fresh connection: unlike fetch it shows a cut-off body as exactly
 * the bytes that arrived, instead of only an error.
 */
export function request(url: string, opts: { method?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false, signal: opts.signal });
    let responded = false;
    // After the response has started, a cut connection shows as an incomplete body instead.
    req.on('error', (e) => {
      if (!responded) reject(e);
    });
    req.on('response', (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => {});
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), complete: res.complete }));
    });
    req.end();
  });
}
