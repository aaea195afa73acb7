import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startArtifactServer, type ArtifactServer } from './artifact-server.js';
import { FIXTURES_DIR } from './fixtures.js';
import { request } from './raw-http.js';

/** The artifact server's per-part fault modes (rangeFaults, etagChangeAfter), seen from a bare client. */
const FILE = join(FIXTURES_DIR, 'artifacts', 'acme-orders.pgdump');
const content = readFileSync(FILE);
const SIZE = content.length;

let server: ArtifactServer;
const range = (from: number, to: number) => ({ headers: { Range: `bytes=${from}-${to}` } });

beforeAll(async () => {
  server = await startArtifactServer(FILE);
});
afterAll(async () => {
  await server.stop();
});
beforeEach(() => server.reset());

describe('artifact server: per-part faults', () => {
  test('every answer carries an ETag; etagChangeAfter gives later GETs another one', async () => {
    server.setMode({ etagChangeAfter: 1 });
    const first = await request(server.url, range(0, 99));
    const second = await request(server.url, range(100, 199));
    expect(first.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(second.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(second.headers.etag).not.toBe(first.headers.etag);
  });

  test('a fault hits only the GET it matches (nth, start or within), as many times as asked', async () => {
    server.setMode({
      rangeFaults: [
        { nth: 2, kind: 'expired' },
        { within: [1000, 2000], kind: 'ignoreRange', times: 2 },
      ],
    });
    expect((await request(server.url, range(0, 99))).status).toBe(206);
    expect((await request(server.url, range(100, 199))).status).toBe(403);
    expect((await request(server.url, range(1000, 1099))).status).toBe(200);
    expect((await request(server.url, range(1500, 1599))).status).toBe(200);
    expect((await request(server.url, range(1500, 1599))).status).toBe(206);
    expect((await request(server.url, range(100, 199))).status).toBe(206);
  });

  test('wrongContentRange: 206 for the range one byte later, body and Content-Range agreeing', async () => {
    server.setMode({ rangeFaults: [{ start: 1000, kind: 'wrongContentRange' }] });
    const r = await request(server.url, range(1000, 1999));
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes 1001-2000/${SIZE}`);
    expect(r.body.equals(content.subarray(1001, 2001))).toBe(true);
  });

  test('overrun: the right Content-Range, then extra bytes, chunked or announced', async () => {
    server.setMode({
      rangeFaults: [
        { start: 0, kind: 'overrun', extra: 500 },
        { start: 2000, kind: 'overrun', extra: 500, announce: true },
      ],
    });
    const chunked = await request(server.url, range(0, 999));
    expect([chunked.status, chunked.headers['content-range'], chunked.headers['content-length']]).toEqual([206, `bytes 0-999/${SIZE}`, undefined]);
    expect(chunked.body.length).toBe(1500);
    expect(chunked.body.subarray(0, 1000).equals(content.subarray(0, 1000))).toBe(true);
    const announced = await request(server.url, range(2000, 2999));
    expect(announced.headers['content-length']).toBe('1500');
    expect(announced.body.length).toBe(1500);
  });

  test('cut: a part announces its range, sends `after` bytes, then hangs up', async () => {
    server.setMode({ rangeFaults: [{ start: 0, kind: 'cut', after: 300 }] });
    const r = await request(server.url, range(0, 999));
    expect([r.status, r.headers['content-length'], r.body.length, r.complete]).toEqual([206, '1000', 300, false]);
    expect(server.requests[0]!.complete).toBe(false);
  });

  /** Reads the endless body until more than `bytes` came, then hangs up. */
  function readEndless(bytes: number): Promise<{ status: number; received: number }> {
    const ac = new AbortController();
    let received = 0;
    return new Promise((resolve) => {
      void fetch(server.url, { headers: { Range: 'bytes=0-99' }, signal: ac.signal }).then(async (res) => {
        const reader = res.body!.getReader();
        try {
          for (;;) {
            const { value } = await reader.read();
            received += value?.length ?? 0;
            if (received > bytes) ac.abort();
          }
        } catch {
          resolve({ status: res.status, received });
        }
      });
    });
  }

  test('endlessError: the status with a body that never ends, until the client hangs up', async () => {
    server.setMode({ rangeFaults: [{ start: 0, kind: 'endlessError', status: 500 }] });
    const { status, received } = await readEndless(1024 * 1024);
    expect(status).toBe(500);
    expect(received).toBeGreaterThan(1024 * 1024);
  });

  test('endlessError: waiting for the client to read on leaves no listener behind (no MaxListenersExceededWarning)', async () => {
    server.setMode({ rangeFaults: [{ start: 0, kind: 'endlessError', status: 500 }] });
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      // 4 MiB in 64 KiB writes: dozens of waits for 'drain'.
      expect((await readEndless(4 * 1024 * 1024)).status).toBe(500);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });
});
