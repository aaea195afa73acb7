import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { api, raw, restoreBody, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

let sb: TestSandbox;
let url: string;
let expected: { expectedSizeBytes: number; expectedSha256: string };

beforeAll(async () => {
  sb = await startTestSandbox();
  const res = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007') });
  url = res.json.execution.presignedS3Url;
  expected = res.json.execution;
});
afterAll(() => sb.stop());

async function download(u: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const res = await request(u, { method, headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('the presigned artifact URL', () => {
  it('serves the whole artifact without an Authorization header; size and SHA-256 match the coordinates', async () => {
    const res = await download(url);
    expect(res.status).toBe(200);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.body.length).toBe(expected.expectedSizeBytes);
    expect(sha256(res.body)).toBe(expected.expectedSha256);
  });

  it('is a real pg_dump custom-format archive', async () => {
    const res = await download(url, { range: 'bytes=0-4' });
    expect(res.body.toString('latin1')).toBe('PGDMP');
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

  it('a tampered signature, key or expiry is 403 with S3 XML', async () => {
    const u = new URL(url);
    const sig = u.searchParams.get('X-Amz-Signature')!;
    const variants = [
      url.replace(sig, `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`),
      url.replace('X-Amz-Expires=900', 'X-Amz-Expires=90000'),
      url.replace('/bj_0007/', '/bj_0005/'),
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
    const again = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007') });
    expect((await download(again.json.execution.presignedS3Url, { range: 'bytes=0-0' })).status).toBe(206);
  });

  it('refuses other methods', async () => {
    const res = await request(url, { method: 'PUT', body: 'x' });
    await res.body.dump();
    expect(res.statusCode).toBe(405);
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
