import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serveFile } from '../../src/sandbox/range-file.js';
import { request } from '../support/raw-http.js';
import { listenOnLoopback } from '../support/ports.js';

const SIZE = 1000;
const content = Buffer.from(Array.from({ length: SIZE }, (_, i) => i % 251));
let dir: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-range-'));
  writeFileSync(join(dir, 'file.bin'), content);
  writeFileSync(join(dir, 'empty.bin'), '');
  mkdirSync(join(dir, 'subdir'));
  server = createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
    const contentType = name === 'typed' ? 'application/vnd.pg-dump' : undefined;
    const file = join(dir, name === 'typed' ? 'file.bin' : name);
    serveFile(req, res, file, contentType ? { contentType } : {}).catch(() => res.destroy());
  });
  base = `http://127.0.0.1:${await listenOnLoopback(server)}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('serveFile', () => {
  test('GET without Range: 200, whole body, Content-Length and Accept-Ranges', async () => {
    const r = await request(`${base}/file.bin`);
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe(String(SIZE));
    expect(r.headers['accept-ranges']).toBe('bytes');
    expect(r.headers['content-type']).toBe('application/octet-stream');
    expect(r.headers['content-range']).toBeUndefined();
    expect(r.body.equals(content)).toBe(true);
  });

  test('contentType option', async () => {
    const r = await request(`${base}/typed`);
    expect(r.headers['content-type']).toBe('application/vnd.pg-dump');
  });

  test.each([
    ['bytes=0-99', 0, 99],
    ['bytes=100-', 100, 999],
    ['bytes=-100', 900, 999],
    ['bytes=-5000', 0, 999],
    ['bytes=990-5000', 990, 999],
    ['bytes=999-999', 999, 999],
    ['bytes=0-0', 0, 0],
  ])('%s answers 206 with bytes %i-%i', async (range, start, end) => {
    const r = await request(`${base}/file.bin`, { headers: { Range: range } });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes ${start}-${end}/${SIZE}`);
    expect(r.headers['content-length']).toBe(String(end - start + 1));
    expect(r.body.equals(content.subarray(start, end + 1))).toBe(true);
  });

  test.each(['bytes=1000-', 'bytes=5000-6000', 'bytes=-0'])('%s is unsatisfiable: 416 with bytes */total', async (range) => {
    const r = await request(`${base}/file.bin`, { headers: { Range: range } });
    expect(r.status).toBe(416);
    expect(r.headers['content-range']).toBe(`bytes */${SIZE}`);
    expect(r.body.length).toBe(0);
  });

  test.each(['bytes=0-10,20-30', 'bytes=50-10', 'items=0-10', 'bytes=abc', 'bytes=-'])(
    'an invalid or multi-range header (%s) is ignored: 200 with the whole file',
    async (range) => {
      const r = await request(`${base}/file.bin`, { headers: { Range: range } });
      expect(r.status).toBe(200);
      expect(r.headers['content-range']).toBeUndefined();
      expect(r.body.equals(content)).toBe(true);
    },
  );

  test('HEAD: headers only, for the whole file and for a range', async () => {
    const whole = await request(`${base}/file.bin`, { method: 'HEAD' });
    expect(whole.status).toBe(200);
    expect(whole.headers['content-length']).toBe(String(SIZE));
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.body.length).toBe(0);

    const part = await request(`${base}/file.bin`, { method: 'HEAD', headers: { Range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${SIZE}`);
    expect(part.headers['content-length']).toBe('100');
    expect(part.body.length).toBe(0);

    const bad = await request(`${base}/file.bin`, { method: 'HEAD', headers: { Range: 'bytes=2000-' } });
    expect(bad.status).toBe(416);
  });

  test('an empty file: 200 with length 0, and any range is unsatisfiable', async () => {
    const r = await request(`${base}/empty.bin`);
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe('0');
    const ranged = await request(`${base}/empty.bin`, { headers: { Range: 'bytes=0-' } });
    expect(ranged.status).toBe(416);
    expect(ranged.headers['content-range']).toBe('bytes */0');
  });

  test('missing file or a directory: 404; other methods: 405', async () => {
    expect((await request(`${base}/nope.bin`)).status).toBe(404);
    expect((await request(`${base}/subdir`)).status).toBe(404);
    const post = await request(`${base}/file.bin`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});
