import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ArtifactServer } from '../../src/sandbox/artifacts.js';
import { UrlSigner } from '../../src/sandbox/keys.js';
import { api, raw, restoreBody, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { listenOnLoopback } from '../support/ports.js';

async function download(u: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const res = await request(u, { method, headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Each completed backup of acme serves its own archive: db_orders' the default, db_billing's billing.pgdump. */
describe.each([
  ['bj_0007', 'acme-orders', 'bj_0005'],
  ['bj_0005', 'billing', 'bj_0007'],
])('the presigned artifact URL of %s (%s)', (backupJobId, artifactName, otherBackupJobId) => {
  let sb: TestSandbox;
  let url: string;
  let expected: { expectedSizeBytes: number; expectedSha256: string };

  beforeAll(async () => {
    sb = await startTestSandbox();
    const res = await raw(sb, 'POST', api('/restores'), { body: restoreBody(backupJobId) });
    url = res.json.execution.presignedS3Url;
    expected = res.json.execution;
  });
  afterAll(() => sb.stop());

  it('serves the whole artifact without an Authorization header; size and SHA-256 match the coordinates and the backup', async () => {
    const res = await download(url);
    expect(res.status).toBe(200);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.body.length).toBe(expected.expectedSizeBytes);
    expect(sha256(res.body)).toBe(expected.expectedSha256);
    const backup = await raw(sb, 'GET', api(`/backups/${backupJobId}`));
    expect(backup.json.artifact).toMatchObject({ sizeBytes: res.body.length, checksumSha256: sha256(res.body) });
    expect(sb.artifacts[artifactName]).toMatchObject({ sizeBytes: res.body.length, sha256: sha256(res.body) });
  });

  it("is a real pg_dump custom-format archive, not the other backup's", async () => {
    const res = await download(url, { range: 'bytes=0-4' });
    expect(res.body.toString('latin1')).toBe('PGDMP');
    const other = await raw(sb, 'GET', api(`/backups/${otherBackupJobId}`));
    expect(other.json.artifact.checksumSha256).not.toBe(expected.expectedSha256);
  });

  it('resumes with Range: the pieces reassemble to the same digest', async () => {
    const size = expected.expectedSizeBytes;
    const cut = Math.floor(size / 3);
    const head = await download(url, { range: `bytes=0-${cut - 1}` });
    expect(head.status).toBe(206);
    expect(head.headers['content-range']).toBe(`bytes 0-${cut - 1}/${size}`);
    const tail = await download(url, { range: `bytes=${cut}-` });
    expect(tail.status).toBe(206);
    expect(tail.headers['content-range']).toBe(`bytes ${cut}-${size - 1}/${size}`);
    expect(sha256(Buffer.concat([head.body, tail.body]))).toBe(expected.expectedSha256);
    const suffix = await download(url, { range: 'bytes=-100' });
    expect(suffix.headers['content-range']).toBe(`bytes ${size - 100}-${size - 1}/${size}`);
    expect(suffix.body.equals(tail.body.subarray(tail.body.length - 100))).toBe(true);
  });

  it('answers 416 for a range past the end, and HEAD with the length only', async () => {
    const size = expected.expectedSizeBytes;
    const res = await download(url, { range: `bytes=${size}-` });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${size}`);
    const head = await download(url, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(size));
    expect(head.body.length).toBe(0);
  });

  it("a tampered signature, key (the other backup's) or expiry is 403 with S3 XML", async () => {
    const u = new URL(url);
    const sig = u.searchParams.get('X-Amz-Signature')!;
    const variants = [
      url.replace(sig, `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`),
      url.replace('X-Amz-Expires=900', 'X-Amz-Expires=90000'),
      url.replace(`/${backupJobId}/`, `/${otherBackupJobId}/`),
      `${u.origin}${u.pathname}`,
    ];
    for (const v of variants) {
      const res = await download(v);
      expect(res.status, v).toBe(403);
      expect(res.headers['content-type']).toBe('application/xml');
      expect(res.body.toString()).toMatch(/<Error><Code>(SignatureDoesNotMatch|AccessDenied)<\/Code>/);
    }
  });

  it('expires after X-Amz-Expires seconds: 403 AccessDenied "Request has expired"', async () => {
    sb.clock.advance(900_000);
    expect((await download(url, { range: 'bytes=0-0' })).status).toBe(206);
    sb.clock.advance(1_000);
    const res = await download(url);
    expect(res.status).toBe(403);
    expect(res.body.toString()).toContain('<Error><Code>AccessDenied</Code><Message>Request has expired</Message>');
    // A new createRestore hands out fresh coordinates.
    const again = await raw(sb, 'POST', api('/restores'), { body: restoreBody(backupJobId) });
    expect((await download(again.json.execution.presignedS3Url, { range: 'bytes=0-0' })).status).toBe(206);
  });

  it('refuses other methods', async () => {
    const res = await request(url, { method: 'PUT', body: 'x' });
    await res.body.dump();
    expect(res.statusCode).toBe(405);
  });
});

describe('ArtifactServer', () => {
  it('a correctly signed key that no backup has is 404 NoSuchKey, like S3', async () => {
    const artifacts = new ArtifactServer({ fileOf: () => undefined, ttlSeconds: 60, signer: new UrlSigner(), now: () => new Date() });
    const server: Server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      void artifacts.handle(req, res, url, 'req_test');
    });
    const port = await listenOnLoopback(server);
    try {
      const base = `http://127.0.0.1:${port}`;
      const res = await download(artifacts.presign(base, 'org_acme/db_gone/bj_0001/dump.pgcustom'));
      expect(res.status).toBe(404);
      expect(res.body.toString()).toContain('<Error><Code>NoSuchKey</Code>');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('artifactOrigin: something in front of the sandbox (the bench long-link proxy)', () => {
  it('presigned URLs name that origin from the moment it is set; the path and signature still serve the artifact', async () => {
    let origin: string | undefined;
    const fronted = await startTestSandbox({ artifactOrigin: () => origin });
    try {
      const before = (await raw(fronted, 'POST', api('/restores'), { body: restoreBody('bj_0007') })).json.execution.presignedS3Url as string;
      expect(before.startsWith(`${fronted.baseUrl}/`)).toBe(true);
      origin = 'http://127.0.0.1:9';
      const after = (await raw(fronted, 'POST', api('/restores'), { body: restoreBody('bj_0007') })).json.execution.presignedS3Url as string;
      expect(after.startsWith('http://127.0.0.1:9/')).toBe(true);
      // What a proxy in front would forward: the same path and query, to the sandbox itself.
      const res = await download(after.replace('http://127.0.0.1:9', fronted.baseUrl), { range: 'bytes=0-4' });
      expect(res.body.toString('latin1')).toBe('PGDMP');
    } finally {
      await fronted.stop();
    }
  });
});
