import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PrefixHasher } from '../../src/restore/prefix-hasher.js';
import { planParts } from '../../src/restore/ranged.js';
import { ArtifactFile } from '../../src/restore/sink.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe('planParts: 64 MiB and more in parts of 8-32 MiB, sized from the artifact and the connections', () => {
  it.each([
    // total, connections, parts, size of each but the last, size of the last
    [64 * MiB - 1, 8, undefined, 0, 0],
    [4 * GiB, 1, undefined, 0, 0],
    [64 * MiB, 8, 8, 8 * MiB, 8 * MiB],
    [72 * MiB + 4321, 4, 9, 8 * MiB, 8 * MiB + 4321],
    [GiB, 8, 32, 32 * MiB, 32 * MiB],
    [GiB, 16, 64, 16 * MiB, 16 * MiB],
    [2 * GiB, 16, 64, 32 * MiB, 32 * MiB],
    [2 * GiB + 3, 16, 65, 32 * MiB, 3],
    [300 * MiB, 2, 10, 32 * MiB, 12 * MiB],
    [100 * GiB, 16, 3200, 32 * MiB, 32 * MiB],
  ])('%i bytes, %i connections: %s parts', (total, connections, count, size, last) => {
    const parts = planParts(total, connections);
    if (count === undefined) {
      expect(parts).toBeUndefined();
      return;
    }
    expect(parts).toHaveLength(count);
    expect(parts![0]!.start).toBe(0);
    expect(parts!.at(-1)!.end).toBe(total);
    for (const [i, p] of parts!.entries()) {
      if (i > 0) expect(p.start).toBe(parts![i - 1]!.end);
      expect(p.end - p.start).toBe(i === count - 1 ? last : size);
    }
  });
});

describe('PrefixHasher: every byte hashed exactly once, in order, whatever order the parts finish in', () => {
  const PART = MiB;
  const parts = [0, 1, 2, 3].map((i) => ({ start: i * PART, end: (i + 1) * PART }));
  const data = randomBytes(4 * PART);
  const sha = createHash('sha256').update(data).digest('hex');
  let dir: string;
  let file: ArtifactFile;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-prefix-'));
    file = await ArtifactFile.open(join(dir, 'artifact.dump'));
    await file.writeAt(data, 0);
  });
  afterEach(async () => {
    await file.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const hasher = (failures: unknown[] = []) => new PrefixHasher(file, parts, new AbortController().signal, (e) => failures.push(e));
  const inPieces = (from: number, to: number) => Array.from({ length: (to - from) / (64 * 1024) }, (_, k) => data.subarray(from + k * 64 * 1024, from + (k + 1) * 64 * 1024));

  it('part 3 finishes first, part 1 streams, part 2 becomes the lead half way, part 4 finishes unowned', async () => {
    const failures: unknown[] = [];
    const h = hasher(failures);
    await h.complete(2); // ahead of the prefix: only marked done
    expect(h.hashed).toBe(0);

    expect(h.owns(0)).toBe(true);
    for (const chunk of inPieces(0, PART)) h.update(chunk);
    expect(h.owns(1)).toBe(false);
    await h.complete(0);
    // Part 2 (index 1) is still downloading: it holds the hash now, nothing was read back.
    expect(h.owns(1)).toBe(true);
    expect(h.readBack).toBe(0);

    // It had written half its bytes before: those come from the file, the rest from memory.
    await h.readBackTo(PART + PART / 2);
    for (const chunk of inPieces(PART + PART / 2, 2 * PART)) h.update(chunk);
    await h.complete(1);
    // The background advance reads back part 3 (done earlier) and hands the hash to part 4.
    await h.idle();
    expect(h.owns(3)).toBe(true);
    expect(h.hashed).toBe(3 * PART);
    await h.complete(3); // finished without hashing anything itself: read back now
    expect(await h.digest()).toBe(sha);
    expect(h.readBack).toBe(PART / 2 + PART + PART);
    expect(failures).toEqual([]);
  });

  it('all parts finish out of order before the first: each is read back once, in order', async () => {
    const h = hasher();
    for (const i of [3, 1, 2]) await h.complete(i);
    for (const chunk of inPieces(0, PART)) h.update(chunk);
    await h.complete(0);
    expect(await h.digest()).toBe(sha);
    expect(h.readBack).toBe(3 * PART);
  });

  it('rewind forgets what an attempt hashed, so its bytes can be hashed again', async () => {
    const h = hasher();
    const [first, second] = inPieces(0, 2 * 64 * 1024);
    h.update(first!);
    const mark = h.mark();
    h.update(Buffer.alloc(second!.length, 0xee)); // the bad attempt
    h.rewind(mark);
    expect(h.hashed).toBe(64 * 1024);
    for (const chunk of inPieces(64 * 1024, PART)) h.update(chunk);
    for (const i of [1, 2, 3]) await h.complete(i);
    await h.complete(0);
    expect(await h.digest()).toBe(sha);
  });

  it('a read-back failure in the background is reported once and fails the digest', async () => {
    const failures: unknown[] = [];
    const h = hasher(failures);
    await h.complete(1);
    for (const chunk of inPieces(0, PART)) h.update(chunk);
    await file.close(); // the next read fails (EBADF)
    await h.complete(0);
    await h.idle();
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).message).toMatch(/^Could not read the artifact back from the work directory: EBADF\./);
    await expect(h.digest()).rejects.toBe(failures[0]);
  });
});
