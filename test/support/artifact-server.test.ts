import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startArtifactServer, type ArtifactServer } from './artifact-server.js';
import { FIXTURES_DIR } from './fixtures.js';
import { request } from './raw-http.js';

const FILE = join(FIXTURES_DIR, 'artifacts', 'acme-orders.pgdump');
const content = readFileSync(FILE);
const SIZE = content.length;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let server: ArtifactServer;

beforeAll(async () => {
  server = await startArtifactServer(FILE);
});
afterAll(async () => {
  await server.stop();
});
beforeEach(() => server.reset());

describe('artifact server', () => {
  test('serves the file at a presigned-style URL and records the request', async () => {
    const url = new URL(server.url);
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.pathname).toBe('/artifacts/acme-orders.pgdump');
    expect(url.searchParams.get('X-Amz-Signature')).toBe(server.signature);
    expect(server.signature).toMatch(/^[0-9a-f]{64}$/);

    const r = await request(server.url);
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe(String(SIZE));
    expect(r.headers['accept-ranges']).toBe('bytes');
    expect(sha256(r.body)).toBe(sha256(content));

    expect(server.requests).toHaveLength(1);
    const [rec] = server.requests;
    expect(rec).toMatchObject({ method: 'GET', url: `${url.pathname}${url.search}`, status: 200 });
    expect(rec!.headers.authorization).toBeUndefined();
    expect(rec!.headers.host).toBe(url.host);
  });

  test('records an Authorization header when one is sent, so tests can assert its absence', async () => {
    await request(server.url, { method: 'HEAD', headers: { Authorization: 'Bearer leak' } });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer leak');
  });

  test('only the exact URL works: wrong signature 403, other key 404, both S3-style XML', async () => {
    const forged = new URL(server.url);
    forged.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    const r403 = await request(forged.toString());
    expect(r403.status).toBe(403);
    expect(r403.body.toString()).toContain('<Code>SignatureDoesNotMatch</Code>');

    const other = new URL(server.url);
    other.pathname = '/artifacts/other.pgdump';
    const r404 = await request(other.toString());
    expect(r404.status).toBe(404);
    expect(r404.body.toString()).toContain('<Code>NoSuchKey</Code>');
  });

  test('normal mode honours Range and HEAD', async () => {
    const part = await request(server.url, { headers: { Range: 'bytes=1000-' } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-${SIZE - 1}/${SIZE}`);
    expect(part.body.equals(content.subarray(1000))).toBe(true);

    const head = await request(server.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(SIZE));
  });

  test('cutAfter: the first GET announces the full size but dies after N bytes; a Range resume then succeeds', async () => {
    server.setMode({ cutAfter: 10_000 });
    // A HEAD does not use up the cut.
    expect((await request(server.url, { method: 'HEAD' })).status).toBe(200);

    const first = await request(server.url);
    expect(first.status).toBe(200);
    expect(first.headers['content-length']).toBe(String(SIZE));
    expect(first.complete).toBe(false);
    expect(first.body.length).toBe(10_000);
    expect(first.body.equals(content.subarray(0, 10_000))).toBe(true);

    const resumed = await request(server.url, { headers: { Range: `bytes=${first.body.length}-` } });
    expect(resumed.status).toBe(206);
    expect(resumed.headers['content-range']).toBe(`bytes 10000-${SIZE - 1}/${SIZE}`);
    expect(resumed.complete).toBe(true);
    expect(sha256(Buffer.concat([first.body, resumed.body]))).toBe(sha256(content));

    const gets = server.requests.filter((r) => r.method === 'GET');
    expect(gets.map((r) => r.headers.range)).toEqual([undefined, 'bytes=10000-']);

    const again = await request(server.url);
    expect(again.complete).toBe(true);
    expect(again.body.equals(content)).toBe(true);
  });

  test('ignoreRange: 200 with the whole body even when Range is sent', async () => {
    server.setMode('ignoreRange');
    const r = await request(server.url, { headers: { Range: 'bytes=100-' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-range']).toBeUndefined();
    expect(r.body.equals(content)).toBe(true);
  });

  test('cutAfter + ignoreRange: the resume gets the whole file again, so the client must start over', async () => {
    server.setMode({ cutAfter: 5000, ignoreRange: true });
    const first = await request(server.url);
    expect(first.body.length).toBe(5000);
    expect(first.complete).toBe(false);
    const retry = await request(server.url, { headers: { Range: 'bytes=5000-' } });
    expect(retry.status).toBe(200);
    expect(retry.headers['content-range']).toBeUndefined();
    expect(retry.body.equals(content)).toBe(true);
  });

  test('expired: 403 with S3 "Request has expired" XML, for GET and HEAD', async () => {
    server.setMode('expired');
    const r = await request(server.url);
    expect(r.status).toBe(403);
    expect(r.headers['content-type']).toBe('application/xml');
    const xml = r.body.toString();
    expect(xml).toMatch(/<Error><Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/);
    expect(xml).not.toContain(server.signature);
    const head = await request(server.url, { method: 'HEAD' });
    expect(head.status).toBe(403);
    expect(head.body.length).toBe(0);
  });

  test('corrupt(offset): exactly one byte flipped wherever that offset is served', async () => {
    server.setMode({ corrupt: 5000 });
    const whole = await request(server.url);
    expect(whole.body.length).toBe(SIZE);
    const diff = [...whole.body.keys()].filter((i) => whole.body[i] !== content[i]);
    expect(diff).toEqual([5000]);
    expect(whole.body[5000]).toBe(content[5000]! ^ 0xff);

    const around = await request(server.url, { headers: { Range: 'bytes=4990-5009' } });
    expect(around.status).toBe(206);
    expect(around.body[10]).toBe(content[5000]! ^ 0xff);
    expect(around.body.subarray(0, 10).equals(content.subarray(4990, 5000))).toBe(true);

    const after = await request(server.url, { headers: { Range: 'bytes=6000-' } });
    expect(after.body.equals(content.subarray(6000))).toBe(true);
  });

  test('slow: the body trickles in chunks, and the client can hang up mid-way', async () => {
    server.setMode({ slow: { bytesPerChunk: 16_384, delayMs: 40 } });
    const started = Date.now();
    const r = await request(server.url);
    const elapsed = Date.now() - started;
    expect(r.body.equals(content)).toBe(true);
    // 16 KiB divides the file stream's read size, so ceil(size / 16 KiB) pieces with 40 ms between them.
    expect(elapsed).toBeGreaterThanOrEqual((Math.ceil(SIZE / 16_384) - 1) * 40 - 5);

    const ac = new AbortController();
    const aborted = request(server.url, { signal: ac.signal }).catch((e: Error) => e);
    setTimeout(() => ac.abort(), 60);
    const cut = await aborted;
    expect(cut instanceof Error || (!cut.complete && cut.body.length < SIZE)).toBe(true);

    server.setMode('normal');
    expect((await request(server.url)).body.equals(content)).toBe(true);
  });

  test('stop() does not wait for a slow download in flight', async () => {
    const own = await startArtifactServer(FILE, { name: 'slow.pgdump' });
    own.setMode({ slow: { bytesPerChunk: 1024, delayMs: 200 } });
    const inFlight = request(own.url).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await own.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    const result = await inFlight;
    expect(result instanceof Error || !result.complete).toBe(true);
  });
});
