import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { serveFile } from '../../src/sandbox/range-file.js';
import { corruptAt, endlessError, overrun, throttle, truncate } from './artifact-bodies.js';
import { listenOnLoopback } from './ports.js';

export interface ArtifactRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  /** Lower-cased names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** Set once the response is done (undefined while it is still streaming). */
  status?: number;
  /** Once done: whether the whole response was sent (false when the client hung up first). */
  complete?: boolean;
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
  /** Faults for single GETs that carry a Range (the parts of a parallel download). */
  rangeFaults?: RangeFault[];
  /** The ETag changes (the object was "replaced") for every GET after this many GETs. */
  etagChangeAfter?: number;
}

/**
 * A fault for one ranged GET: the `nth` GET with a Range header (1-based, counted from setMode),
 * the one whose Range starts at byte `start`, or any starting `within` [from, to) (a part and its
 * resumptions); used `times` times (default once), then normal.
 */
export type RangeFault = { nth?: number; start?: number; within?: [number, number]; times?: number } &
  /** Announces the full range, sends `after` bytes of it, then hangs up. */
  (
    | { kind: 'cut'; after: number }
    /** 206 with the range one byte later than asked (body and Content-Range agree, like a buggy server). */
    | { kind: 'wrongContentRange' }
    /** 200 with the whole file. */
    | { kind: 'ignoreRange' }
    /** S3's 403 "Request has expired". */
    | { kind: 'expired' }
    /** 206 with the right Content-Range, then `extra` bytes past the range: chunked, or with a Content-Length that counts them. */
    | { kind: 'overrun'; extra: number; announce?: boolean }
    /** This status with an error body that never ends (until the client hangs up). */
    | { kind: 'endlessError'; status: number }
    /** The body in pieces of bytesPerChunk with delayMs between them. */
    | { kind: 'slow'; bytesPerChunk: number; delayMs: number }
  );

export interface ArtifactServer {
  /** Presigned-style URL: /artifacts/<name>?X-Amz-...&X-Amz-Signature=<secret>. Only this exact URL is served. */
  url: string;
  /** The X-Amz-Signature value, so tests can assert it never leaks into output or errors. */
  signature: string;
  requests: ArtifactRequest[];
  /** The most GETs whose responses were in flight at once (since reset). */
  peakConcurrency: number;
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

/** The query string of an S3 presigned URL (SigV4) carrying `signature`: what the scrubber must hide. */
export function presignedQuery(signature: string): string {
  return new URLSearchParams({
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': 'AKIAIOSFODNN7EXAMPLE/20261121/us-east-1/s3/aws4_request',
    'X-Amz-Date': '20261121T120000Z',
    'X-Amz-Expires': '900',
    'X-Amz-SignedHeaders': 'host',
    'X-Amz-Signature': signature,
  }).toString();
}

/**
 * A loopback stand-in for S3 serving one file at a presigned-style URL, built on serveFile, that
 * records every request and can misbehave on demand (see ArtifactServerMode).
 */
export async function startArtifactServer(filePath: string, opts: { name?: string } = {}): Promise<ArtifactServer> {
  const name = opts.name ?? basename(filePath);
  const path = `/artifacts/${encodeURIComponent(name)}`;
  const signature = randomBytes(32).toString('hex');
  const query = presignedQuery(signature);

  let mode: ArtifactServerMode = {};
  let cutPending = false;
  let faults: Array<RangeFault & { left: number }> = [];
  let gets = 0;
  let rangedGets = 0;
  let inFlight = 0;
  const requests: ArtifactRequest[] = [];
  const etags = [`"${randomBytes(16).toString('hex')}"`, `"${randomBytes(16).toString('hex')}"`];

  /** The first fault matching this ranged GET, used up by taking it. */
  const takeFault = (nth: number, start: number): RangeFault | undefined => {
    const fault = faults.find(
      (f) =>
        f.left > 0 &&
        (f.nth === undefined || f.nth === nth) &&
        (f.start === undefined || f.start === start) &&
        (f.within === undefined || (start >= f.within[0] && start < f.within[1])),
    );
    if (fault) fault.left--;
    return fault;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    /** Body bytes sent before hanging up, when this response is to be cut. */
    let cut: number | undefined;
    const record: ArtifactRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: { ...req.headers } };
    requests.push(record);
    const isGet = req.method === 'GET';
    if (isGet) {
      gets++;
      artifactServer.peakConcurrency = Math.max(artifactServer.peakConcurrency, ++inFlight);
    }
    res.on('close', () => {
      record.status = res.statusCode;
      record.complete = res.writableFinished && cut === undefined;
      if (isGet) inFlight--;
    });

    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return sendXml(req, res, 404, s3Error('NoSuchKey', 'The specified key does not exist.'));
    if (url.searchParams.get('X-Amz-Signature') !== signature) {
      return sendXml(req, res, 403, s3Error('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'));
    }
    const expired = () =>
      sendXml(
        req,
        res,
        403,
        s3Error(
          'AccessDenied',
          'Request has expired',
          '<X-Amz-Expires>900</X-Amz-Expires><Expires>2026-11-21T12:15:00Z</Expires><ServerTime>2026-11-21T13:00:00Z</ServerTime>',
        ),
      );
    if (mode.expired) return expired();

    const rangeStart = isGet && req.headers.range !== undefined ? Number(/^bytes=(\d+)-/.exec(req.headers.range)?.[1]) : undefined;
    const fault = rangeStart === undefined ? undefined : takeFault(++rangedGets, rangeStart);
    const etag = etags[mode.etagChangeAfter !== undefined && gets > mode.etagChangeAfter ? 1 : 0]!;
    const headers = { 'x-amz-request-id': randomBytes(8).toString('hex').toUpperCase(), ETag: etag };
    if (fault?.kind === 'expired') return expired();
    if (fault?.kind === 'endlessError') return endlessError(res, fault.status);
    if (fault?.kind === 'overrun') return overrun(req, res, filePath, headers, fault);
    if (fault?.kind === 'wrongContentRange') {
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (m) req.headers.range = `bytes=${Number(m[1]) + 1}-${m[2] ? Number(m[2]) + 1 : ''}`;
    }

    const firstCut = isGet && cutPending && mode.cutAfter !== undefined ? mode.cutAfter : undefined;
    cut = fault?.kind === 'cut' ? fault.after : firstCut;
    if (firstCut !== undefined) cutPending = false;
    if (cut !== undefined) {
      // 'finish' means the truncated body has reached the socket: now hang up mid-response. The
      // socket is taken now: by 'finish' node has detached it from res, and a keep-alive client
      // would otherwise wait for the missing bytes until the server's keep-alive timeout.
      const socket = res.socket;
      res.once('finish', () => socket?.destroy());
    }
    const { corrupt } = mode;
    const slow = fault?.kind === 'slow' ? fault : mode.slow;
    await serveFile(req, res, filePath, {
      ignoreRange: (mode.ignoreRange ?? false) || fault?.kind === 'ignoreRange',
      headers,
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
  const port = await listenOnLoopback(server);

  const artifactServer: ArtifactServer = {
    url: `http://127.0.0.1:${port}${path}?${query}`,
    signature,
    requests,
    peakConcurrency: 0,
    setMode(next) {
      mode = next === 'normal' ? {} : next === 'ignoreRange' ? { ignoreRange: true } : next === 'expired' ? { expired: true } : { ...next };
      cutPending = mode.cutAfter !== undefined;
      faults = (mode.rangeFaults ?? []).map((f) => ({ ...f, left: f.times ?? 1 }));
      gets = 0;
      rangedGets = 0;
    },
    reset() {
      artifactServer.setMode('normal');
      requests.length = 0;
      artifactServer.peakConcurrency = 0;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return artifactServer;
}
