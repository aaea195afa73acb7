import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { pipeline, Transform, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveFile, type ServedRange } from '../../src/sandbox/range-file.js';

export interface ArtifactRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  /** Lower-cased names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** Set once the response is done (undefined while it is still streaming). */
  status?: number;
}

/** Fault modes; combine fields, e.g. `{ cutAfter: 1000, ignoreRange: true }` to force a restart from scratch. */
export interface ArtifactServerMode {
  /** The first GET after setMode: full Content-Length, then the socket is destroyed after this many body bytes. */
  cutAfter?: number;
  /** Always 200 with the whole body, even when Range is sent. */
  ignoreRange?: boolean;
  /** 403 with S3's "Request has expired" XML. */
  expired?: boolean;
  /** Send the body in pieces of bytesPerChunk with delayMs between them. */
  slow?: { bytesPerChunk: number; delayMs: number };
  /** Flip every bit of the byte at this file offset, in whatever range is served. */
  corrupt?: number;
}

export interface ArtifactServer {
  /** Presigned-style URL: /artifacts/<name>?X-Amz-...&X-Amz-Signature=<secret>. Only this exact URL is served. */
  url: string;
  /** The X-Amz-Signature value, so tests can assert it never leaks into output or errors. */
  signature: string;
  requests: ArtifactRequest[];
  setMode(mode: ArtifactServerMode | 'normal' | 'ignoreRange' | 'expired'): void;
  /** Back to normal, requests forgotten. */
  reset(): void;
  stop(): Promise<void>;
}

function s3Error(code: string, message: string, extra = ''): string {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${message}</Message>${extra}` +
    `<RequestId>${requestId}</RequestId><HostId>${randomBytes(24).toString('base64')}</HostId></Error>`
  );
}

function sendXml(req: IncomingMessage, res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Flips the byte at absolute file offset `offset`, if it falls inside the served range. */
function corruptAt(offset: number, range: ServedRange): Transform {
  let pos = range.start;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (offset >= pos && offset < pos + chunk.length) {
        chunk = Buffer.from(chunk);
        chunk[offset - pos] = chunk[offset - pos]! ^ 0xff;
      }
      pos += chunk.length;
      cb(null, chunk);
    },
  });
}

/** Pieces of bytesPerChunk with delayMs between them (none before the first). */
function throttle(bytesPerChunk: number, delayMs: number): Transform {
  const ac = new AbortController();
  let first = true;
  return new Transform({
    async transform(chunk: Buffer, _enc, cb) {
      try {
        for (let i = 0; i < chunk.length; i += bytesPerChunk) {
          if (!first) await sleep(delayMs, undefined, { signal: ac.signal });
          first = false;
          this.push(chunk.subarray(i, i + bytesPerChunk));
        }
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
    destroy(err, cb) {
      ac.abort();
      cb(err);
    },
  });
}

/** Passes `limit` bytes, then ends early; the caller destroys the socket once they are flushed. */
function truncate(limit: number): Transform {
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (sent >= limit) return cb();
      const part = chunk.subarray(0, limit - sent);
      sent += part.length;
      this.push(part);
      if (sent >= limit) this.push(null);
      cb();
    },
  });
}

/**
 * A loopback stand-in for S3 serving one file at a presigned-style URL, built on serveFile, that
 * records every request and can misbehave on demand (see ArtifactServerMode).
 */
export async function startArtifactServer(filePath: string, opts: { name?: string } = {}): Promise<ArtifactServer> {
  const name = opts.name ?? basename(filePath);
  const path = `/artifacts/${encodeURIComponent(name)}`;
  const signature = randomBytes(32).toString('hex');
  const query = new URLSearchParams({
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': 'AKIAIOSFODNN7EXAMPLE/20261121/us-east-1/s3/aws4_request',
    'X-Amz-Date': '20261121T120000Z',
    'X-Amz-Expires': '900',
    'X-Amz-SignedHeaders': 'host',
    'X-Amz-Signature': signature,
  }).toString();

  let mode: ArtifactServerMode = {};
  let cutPending = false;
  const requests: ArtifactRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const record: ArtifactRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: { ...req.headers } };
    requests.push(record);
    res.on('close', () => (record.status = res.statusCode));

    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return sendXml(req, res, 404, s3Error('NoSuchKey', 'The specified key does not exist.'));
    if (url.searchParams.get('X-Amz-Signature') !== signature) {
      return sendXml(req, res, 403, s3Error('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'));
    }
    if (mode.expired) {
      return sendXml(
        req,
        res,
        403,
        s3Error('AccessDenied', 'Request has expired', '<X-Amz-Expires>900</X-Amz-Expires><Expires>2026-11-21T12:15:00Z</Expires><ServerTime>2026-11-21T13:00:00Z</ServerTime>'),
      );
    }

    const cut = req.method === 'GET' && cutPending && mode.cutAfter !== undefined ? mode.cutAfter : undefined;
    if (cut !== undefined) {
      cutPending = false;
      // 'finish' means the truncated body has reached the socket: now hang up mid-response. The
      // socket is taken now: by 'finish' node has detached it from res, and a keep-alive client
      // would otherwise wait for the missing bytes until the server's keep-alive timeout.
      const socket = res.socket;
      res.once('finish', () => socket?.destroy());
    }
    const { corrupt, slow } = mode;
    await serveFile(req, res, filePath, {
      ignoreRange: mode.ignoreRange ?? false,
      headers: { 'x-amz-request-id': randomBytes(8).toString('hex').toUpperCase() },
      transformBody: (body: Readable, range) => {
        const stages: Transform[] = [];
        if (corrupt !== undefined) stages.push(corruptAt(corrupt, range));
        if (slow) stages.push(throttle(slow.bytesPerChunk, slow.delayMs));
        if (cut !== undefined) stages.push(truncate(cut));
        // pipeline, not pipe: a client hanging up must tear down (and close) the file stream too.
        return stages.length ? (pipeline([body, ...stages], () => {}) as unknown as Readable) : body;
      },
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(err));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const artifactServer: ArtifactServer = {
    url: `http://127.0.0.1:${port}${path}?${query}`,
    signature,
    requests,
    setMode(next) {
      mode = next === 'normal' ? {} : next === 'ignoreRange' ? { ignoreRange: true } : next === 'expired' ? { expired: true } : { ...next };
      cutPending = mode.cutAfter !== undefined;
    },
    reset() {
      artifactServer.setMode('normal');
      requests.length = 0;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return artifactServer;
}
