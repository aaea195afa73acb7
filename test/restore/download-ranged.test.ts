import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { downloadArtifact } from '../../src/restore/download/download.js';
import { startArtifactServer } from '../support/artifact-server.js';
import { writeArtifact } from '../support/big-artifact.js';
import { expectNoSignature, MiB, PART, PARTS, SIZE, startOf, useRangedArtifact } from '../support/ranged-artifact.js';

/**
 * The parallel ranged download (cli-contract 7.4) against a loopback S3 stand-in, real HTTP through
 * undici, a 72 MiB artifact: the parts asked for, each part resuming or retrying on its own, and
 * the fall-backs to one stream. Failures that end the download: download-ranged-faults.test.ts.
 */
const t = useRangedArtifact();
const byStart = (a?: string, b?: string) => Number(/\d+/.exec(a!)![0]) - Number(/\d+/.exec(b!)![0]);

describe('parallel ranged download', () => {
  it.each([
    [undefined, 8],
    [4, 4],
    [16, 9],
  ])('connections %s: nine 8 MiB parts, at most %i at once, each asked once, digest right', async (connections, limit) => {
    const progress: number[] = [];
    const result = await downloadArtifact(t.options({ connections, onProgress: (n, total) => (expect(total).toBe(SIZE), progress.push(n)) }));
    await t.expectArtifact(result);
    // What the receipt reports: the connections the parts came over.
    expect(result.connections).toBe(limit);
    expect(
      t
        .gets()
        .map((r) => r.headers.range)
        .sort(byStart),
    ).toEqual(PARTS);
    expect(t.gets().every((r) => r.status === 206 && r.headers.authorization === undefined)).toBe(true);
    expect(t.server.peakConcurrency).toBeGreaterThan(1);
    expect(t.server.peakConcurrency).toBeLessThanOrEqual(limit);
    expect(progress.at(-1)).toBe(SIZE);
    expect(progress.every((n, i) => i === 0 || n >= progress[i - 1]!)).toBe(true);
    expect(t.notices).toEqual([]);
  });

  it('below 64 MiB, or with --connections 1, it is one stream without Range', async () => {
    const small = join(t.root, 'small.bin');
    const smallSha = await writeArtifact(small, 64 * MiB - 1);
    const own = await startArtifactServer(small);
    try {
      const r = await downloadArtifact(t.options({ url: own.url, expectedSize: 64 * MiB - 1, expectedSha256: smallSha }));
      expect(r.sha256).toBe(smallSha);
      expect(r.connections).toBe(1);
      expect(own.requests.map((q) => [q.headers.range, q.status])).toEqual([[undefined, 200]]);
    } finally {
      await own.stop();
      rmSync(small);
    }
    rmSync(join(t.dir, 'artifact.dump'));
    const one = await downloadArtifact(t.options({ connections: 1 }));
    await t.expectArtifact(one);
    expect(one.connections).toBe(1);
    expect(t.gets().map((q) => [q.headers.range, q.status])).toEqual([[undefined, 200]]);
  });

  it('a part cut mid-way resumes alone, from where it stopped to the end of its range', async () => {
    t.server.setMode({ rangeFaults: [{ start: PART, kind: 'cut', after: MiB }] });
    await t.expectArtifact(await downloadArtifact(t.options()));
    const part2 = t.gets().filter((r) => startOf(r) >= PART && startOf(r) < 2 * PART);
    expect(part2.map((r) => r.complete)).toEqual([false, true]);
    const resumedAt = startOf(part2[1]!);
    expect(resumedAt).toBeGreaterThan(PART);
    expect(resumedAt).toBeLessThanOrEqual(PART + MiB);
    expect(part2[1]!.headers.range).toBe(`bytes=${resumedAt}-${2 * PART - 1}`);
    expect(t.gets()).toHaveLength(10);
    expect(t.notices).toHaveLength(1);
    expect(t.notices[0]).toMatch(new RegExp(`^Download of part 2 of 9 interrupted \\(\\w+\\); resuming at byte ${resumedAt} of ${SIZE}\\.$`));
  });

  it('a part that keeps moving earns its retries back: cut five times with two retries, still done', async () => {
    t.server.setMode({ rangeFaults: [{ within: [2 * PART, 3 * PART], kind: 'cut', after: MiB, times: 5 }] });
    await t.expectArtifact(await downloadArtifact(t.options({ maxRetries: 2 })));
    expect(t.gets().filter((r) => startOf(r) >= 2 * PART && startOf(r) < 3 * PART)).toHaveLength(6);
  });

  it('the first part slow and the second slower: parts finished ahead are read back, the second catches up, digest right', async () => {
    t.server.setMode({
      rangeFaults: [
        { start: 0, kind: 'slow', bytesPerChunk: 256 * 1024, delayMs: 8 },
        { start: PART, kind: 'slow', bytesPerChunk: 256 * 1024, delayMs: 16 },
      ],
    });
    await t.expectArtifact(await downloadArtifact(t.options()));
    expect(t.gets()).toHaveLength(9);
  });

  it.each([
    ['the first part (which hashes as it arrives)', 0, false, 'a part body longer than its range'],
    ['the second part, chunked', PART, false, 'a part body longer than its range'],
    ['the second part, its Content-Length counting the extra', PART, true, `Content-Length ${PART + MiB} for a range of ${PART} bytes`],
  ])('a body longer than its range on %s: cut there, and the whole part asked again', async (_case, start, announce, reason) => {
    t.server.setMode({ rangeFaults: [{ start, kind: 'overrun', extra: MiB, announce }] });
    await t.expectArtifact(await downloadArtifact(t.options()));
    expect(t.asked(PARTS[start / PART]!)).toHaveLength(2);
    expect(t.gets()).toHaveLength(10);
    expect(t.notices).toEqual([`Download of part ${start / PART + 1} of 9 interrupted (${reason}); resuming at byte ${start} of ${SIZE}.`]);
  });

  it('an endless 503 body is cut off and that part alone is retried', async () => {
    t.server.setMode({ rangeFaults: [{ start: 2 * PART, kind: 'endlessError', status: 503 }] });
    await t.expectArtifact(await downloadArtifact(t.options()));
    expect(t.asked(PARTS[2]!).map((r) => r.status)).toEqual([503, 206]);
    expect(t.gets()).toHaveLength(10);
  }, 60_000);

  it.each([
    [
      'a part answers with another Content-Range',
      { rangeFaults: [{ start: 2 * PART, kind: 'wrongContentRange' as const }] },
      'The artifact server answered a part with a different Content-Range; downloading the artifact again as one stream.',
    ],
    [
      'the ETag changes mid-way',
      { etagChangeAfter: 2 },
      'The artifact changed during the download (its ETag changed); downloading the artifact again as one stream.',
    ],
    [
      'a later part is answered 200',
      { rangeFaults: [{ nth: 4, kind: 'ignoreRange' as const }] },
      'The artifact server stopped honouring Range requests; downloading the artifact again as one stream.',
    ],
  ])('%s: it starts over as one stream and says so', async (_case, mode, notice) => {
    t.server.setMode(mode);
    await t.expectArtifact(await downloadArtifact(t.options()));
    expect(t.notices).toEqual([notice]);
    const whole = t.gets().filter((r) => r.headers.range === undefined);
    expect(whole).toHaveLength(1);
    expect(t.gets().at(-1)).toBe(whole[0]);
    expect(whole[0]!.status).toBe(200);
  });

  it('a server that answers the first Range request with 200: that answer is the one stream, no other request', async () => {
    t.server.setMode('ignoreRange');
    await t.expectArtifact(await downloadArtifact(t.options()));
    expect(t.gets().map((r) => [r.headers.range, r.status, r.complete])).toEqual([[PARTS[0], 200, true]]);
    expect(t.notices).toEqual(['The artifact server ignored the Range request; downloading the artifact as one stream.']);
  });

  it('that one stream, cut mid-way, resumes with a Range request as a single download does', async () => {
    t.server.setMode({ rangeFaults: [{ nth: 1, kind: 'ignoreRange' }], cutAfter: 5 * MiB });
    await t.expectArtifact(await downloadArtifact(t.options()));
    const [first, resumed, ...more] = t.gets();
    expect(more).toEqual([]);
    expect([first!.headers.range, first!.status, first!.complete]).toEqual([PARTS[0], 200, false]);
    const at = startOf(resumed!);
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThanOrEqual(5 * MiB);
    expect([resumed!.headers.range, resumed!.status]).toEqual([`bytes=${at}-`, 206]);
    expect(t.notices).toEqual([
      'The artifact server ignored the Range request; downloading the artifact as one stream.',
      expect.stringMatching(new RegExp(`^Download interrupted \\(\\w+\\); resuming at byte ${at} of ${SIZE}\\.$`)),
    ]);
  });

  it('across every case: no URL signature in any notice', () => expectNoSignature(t, 8));
});
