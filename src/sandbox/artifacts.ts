import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFile } from './range-file.js';
import type { UrlSigner } from './keys.js';

export const ARTIFACT_PREFIX = '/artifacts/';

/** 20261121T120000Z: the X-Amz-Date form. */
export function amzDate(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
}

function parseAmzDate(s: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return undefined;
  const t = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(t) ? undefined : t;
}

function s3Error(res: ServerResponse, status: number, code: string, message: string, requestId: string): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${requestId}</RequestId></Error>\n`;
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(xml) });
  res.end(res.req.method === 'HEAD' ? undefined : xml);
}

export interface ArtifactServerOptions {
  /** The file an artifact key serves; undefined for a key no backup has (404 NoSuchKey). */
  fileOf: (artifactKey: string) => string | undefined;
  ttlSeconds: number;
  signer: UrlSigner;
  now: () => Date;
}

/**
 * The sandbox's stand-in for an object store: presigned GET/HEAD of each backup's artifact, no
 * Authorization header (the signature is the credential), Range support, S3-style XML errors.
 */
export class ArtifactServer {
  constructor(private readonly opts: ArtifactServerOptions) {}

  /** A presigned URL for the artifact under this key, valid for ttlSeconds from now. */
  presign(baseUrl: string, artifactKey: string): string {
    const date = amzDate(this.opts.now());
    const expires = this.opts.ttlSeconds;
    const path = artifactKey.split('/').map(encodeURIComponent).join('/');
    const signature = this.opts.signer.sign(artifactKey, date, expires);
    return `${baseUrl}${ARTIFACT_PREFIX}${path}?X-Amz-Date=${date}&X-Amz-Expires=${expires}&X-Amz-Signature=${signature}`;
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return s3Error(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.', requestId);
    }
    let key: string;
    try {
      key = decodeURIComponent(url.pathname.slice(ARTIFACT_PREFIX.length));
    } catch {
      return s3Error(res, 400, 'InvalidURI', 'Could not parse the specified URI.', requestId);
    }
    const q = url.searchParams;
    const date = q.get('X-Amz-Date');
    const expiresRaw = q.get('X-Amz-Expires');
    const signature = q.get('X-Amz-Signature');
    if (!date || !expiresRaw || !signature) {
      return s3Error(res, 403, 'AccessDenied', 'Query-string authentication requires the X-Amz-Date, X-Amz-Expires and X-Amz-Signature parameters.', requestId);
    }
    const issued = parseAmzDate(date);
    const expires = /^\d{1,7}$/.test(expiresRaw) ? Number(expiresRaw) : undefined;
    if (issued === undefined || expires === undefined || !this.opts.signer.verify(key, date, expires, signature)) {
      return s3Error(res, 403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.', requestId);
    }
    if (this.opts.now().getTime() > issued + expires * 1000) {
      return s3Error(res, 403, 'AccessDenied', 'Request has expired', requestId);
    }
    const file = this.opts.fileOf(key);
    if (file === undefined) return s3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.', requestId);
    await serveFile(req, res, file, { contentType: 'application/octet-stream' });
  }
}
