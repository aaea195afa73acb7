import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { IntegrityError, InterruptedError } from '../../src/errors.js';
import { downloadArtifact } from '../../src/restore/download/download.js';
import { expectNoSignature, MiB, PART, PARTS, SIZE, useRangedArtifact } from '../support/ranged-artifact.js';

/**
 * The parallel ranged download's failures (cli-contract 7.4), each exit 10 with its error code,
 * or 130 for Ctrl-C: every part stops, nothing hangs, no message quotes the presigned URL.
 */
const t = useRangedArtifact();

describe('parallel ranged download: failures', () => {
  it('a 200 announcing another size fails at once (exit 10), its body not read', async () => {
    t.server.setMode('ignoreRange');
    const err = await t.failure(downloadArtifact(t.options({ expectedSize: SIZE + 7 })));
    expect(err).toBeInstanceOf(IntegrityError);
    expect([err.exitCode, err.details.code]).toEqual([10, 'artifact_integrity']);
    expect(err.message).toBe(
      `Artifact size mismatch: the artifact store announces ${SIZE} bytes, the service expected ${SIZE + 7}. Nothing was downloaded or restored.`,
    );
    await t.allClosed();
    expect(t.gets().map((r) => [r.status, r.complete])).toEqual([[200, false]]);
  });

  it('expiry on the third part is exit 10 artifact_expired, not retried, and every part stops', async () => {
    t.server.setMode({ rangeFaults: [{ nth: 3, kind: 'expired' }] });
    const err = await t.failure(downloadArtifact(t.options({ maxRetries: 5 })));
    expect([err.exitCode, err.details.code]).toEqual([10, 'artifact_expired']);
    expect(err.message).toBe('The artifact download URL has expired (HTTP 403 "Request has expired").');
    expect(err.details.hint).toMatch(/Run the restore again to get fresh download coordinates/);
    await t.allClosed();
    expect(t.gets().filter((r) => r.status === 403)).toHaveLength(1);
    expect(t.gets().length).toBeLessThan(9);
  });

  it('an endless 404 body on a part is exit 10 artifact_download_failed, and it does not hang', async () => {
    t.server.setMode({ rangeFaults: [{ start: PART, kind: 'endlessError', status: 404 }] });
    const err = await t.failure(downloadArtifact(t.options()));
    expect([err.exitCode, err.details.code, err.message]).toEqual([10, 'artifact_download_failed', 'The artifact download failed with HTTP 404.']);
    await t.allClosed();
    expect(t.asked(PARTS[1]!).map((r) => [r.status, r.complete])).toEqual([[404, false]]);
  }, 60_000);

  it('a part failing without progress beyond its retries fails the download for good (exit 10)', async () => {
    t.server.setMode({ rangeFaults: [{ start: 2 * PART, kind: 'endlessError', status: 500, times: 10 }] });
    const err = await t.failure(downloadArtifact(t.options({ maxRetries: 2 })));
    expect([err.exitCode, err.details.code, err.message]).toEqual([
      10,
      'artifact_download_failed',
      'The artifact download failed for good (part 3 of 9): HTTP 500.',
    ]);
    await t.allClosed();
    expect(t.asked(PARTS[2]!)).toHaveLength(3);
  }, 60_000);

  it('one flipped byte in a late part is a SHA-256 mismatch (exit 10 artifact_integrity)', async () => {
    t.server.setMode({ corrupt: 7 * PART + 12345 });
    const err = await t.failure(downloadArtifact(t.options()));
    expect([err.exitCode, err.details.code]).toEqual([10, 'artifact_integrity']);
    expect(err.message).toMatch(new RegExp(`^Artifact SHA-256 mismatch: got [0-9a-f]{64}, the service expected ${t.sha}\\.`));
  });

  it.each([
    ['file:', 'file:///srv/artifacts/acme.pgdump?X-Amz-Signature=0f1e2d3c4b5a'],
    ['data:', 'data:application/octet-stream;base64,X-Amz-Signature=0f1e2d3c4b5a'],
    ['ftp:', 'ftp://artifacts.example/acme.pgdump?X-Amz-Signature=0f1e2d3c4b5a'],
  ])('a %s URL is exit 10 at once: no request, no retry, no file', async (scheme, url) => {
    const sleep = vi.fn(async () => {});
    const err = await t.failure(downloadArtifact(t.options({ url, sleep })));
    expect([err.exitCode, err.details.code]).toEqual([10, 'artifact_download_failed']);
    expect(err.message).toBe(`The artifact download URL uses the "${scheme}" scheme; only http and https are fetched.`);
    expect(err.message).not.toContain('0f1e2d3c4b5a');
    expect(sleep).not.toHaveBeenCalled();
    expect(t.server.requests).toEqual([]);
    expect(readdirSync(t.dir)).toEqual([]);
  });

  it('Ctrl-C stops every part, ends the hashing thread and closes the file', async () => {
    t.server.setMode({ slow: { bytesPerChunk: 64 * 1024, delayMs: 20 } });
    const ac = new AbortController();
    // The process's threads (Linux): the download's hashing thread is one while it runs.
    const threads = () => (existsSync('/proc/self/task') ? readdirSync('/proc/self/task').length : 0);
    const before = threads();
    let during = 0;
    const err = await t.failure(downloadArtifact(t.options({ signal: ac.signal, onProgress: (n) => n > 2 * MiB && ((during ||= threads()), ac.abort()) })));
    expect(err).toBeInstanceOf(InterruptedError);
    expect(threads()).toBe(before);
    if (before > 0) expect(during).toBe(before + 1);
    await t.allClosed();
    expect(t.gets().length).toBeGreaterThan(1);
    expect(t.gets().every((r) => r.complete === false)).toBe(true);
    if (existsSync('/proc/self/fd')) {
      const open = readdirSync('/proc/self/fd').map((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          return '';
        }
      });
      expect(open.filter((target) => target.startsWith(t.dir))).toEqual([]);
    }
  }, 60_000);

  it('across every case: no URL signature in any error message, hint or notice', () => expectNoSignature(t, 16));
});
