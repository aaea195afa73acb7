/** Serving a file over node:http the way S3 does for a presigned GET: streamed, with single byte ranges. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The bytes a response carries: inclusive start and end offsets into a file of `total` bytes. */
export interface ServedRange {
  start: number;
  end: number;
  total: number;
  /** 206 for a honoured Range, else 200. */
  status: 200 | 206;
}

export interface ServeFileOptions {
  contentType?: string;
  /** Answer 200 with the whole file even when a Range is asked for, like a server without range support. */
  ignoreRange?: boolean;
  /** Extra response headers. */
  headers?: OutgoingHttpHeaders;
  /**
   * Wraps the body stream (throttling, corruption, truncation: fault injection). It must not add
   * bytes; Content-Length is already set from the range.
   */
  transformBody?: (body: Readable, range: ServedRange) => Readable;
}

const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'ECONNRESET', 'EPIPE']);

export type RangeResult = { kind: 'none' } | { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' };

/**
 * Interprets a Range header against a representation of `total` bytes (RFC 9110 §14). A header
 * that is not a single, well-formed `bytes=` range is ignored, as the RFC allows: the caller then
 * serves the whole file.
 */
export function parseRange(header: string | undefined, total: number): RangeResult {
  if (header === undefined) return { kind: 'none' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return { kind: 'none' };
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return { kind: 'none' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || total === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, total - suffix), end: total - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'none' }; // last-pos < first-pos: invalid, not unsatisfiable
  if (start >= total) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end: last === '' ? total - 1 : Math.min(Number(last), total - 1) };
}

/**
 * Streams filePath as the response to a GET or HEAD: Content-Length, Accept-Ranges: bytes, a single
 * Range answered with 206 and Content-Range, 416 when unsatisfiable. Never buffers the file.
 * Resolves when the response is finished or the client went away; 404 for a missing file.
 */
export async function serveFile(req: IncomingMessage, res: ServerResponse, filePath: string, opts: ServeFileOptions = {}): Promise<void> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain', ...opts.headers }).end('method not allowed\n');
    return;
  }

  let total: number;
  try {
    const st = await stat(filePath);
    if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOENT' });
    total = st.size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    res.writeHead(404, { 'Content-Type': 'text/plain', ...opts.headers }).end('not found\n');
    return;
  }

  const base: OutgoingHttpHeaders = {
    'Accept-Ranges': 'bytes',
    'Content-Type': opts.contentType ?? 'application/octet-stream',
    ...opts.headers,
  };
  const asked = opts.ignoreRange ? ({ kind: 'none' } as const) : parseRange(req.headers.range, total);

  if (asked.kind === 'unsatisfiable') {
    res.writeHead(416, { ...base, 'Content-Range': `bytes */${total}`, 'Content-Length': 0 }).end();
    return;
  }

  const range: ServedRange =
    asked.kind === 'range' ? { start: asked.start, end: asked.end, total, status: 206 } : { start: 0, end: total - 1, total, status: 200 };
  const length = range.end - range.start + 1;
  res.writeHead(range.status, {
    ...base,
    'Content-Length': length,
    ...(range.status === 206 ? { 'Content-Range': `bytes ${range.start}-${range.end}/${total}` } : {}),
  });

  if (method === 'HEAD' || length === 0) {
    res.end();
    return;
  }

  let body: Readable = createReadStream(filePath, { start: range.start, end: range.end });
  if (opts.transformBody) body = opts.transformBody(body, range);
  try {
    await pipeline(body, res);
  } catch (e) {
    // A client that hangs up (or a fault mode that cuts the socket) is not a server error; a read error is.
    if (CLIENT_GONE.has((e as NodeJS.ErrnoException).code ?? '')) return;
    res.destroy();
    throw e;
  }
}
