import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PrefixHasher } from '../../src/restore/download/prefix-hasher.js';
import { planParts } from '../../src/restore/download/ranged.js';
import { ArtifactFile } from '../../src/restore/download/sink.js';

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

describe('PrefixHasher: the prefix on disk hashed in order, in a thread of its own, whatever order the parts finish in', () => {
  const PART = MiB;
  const parts = [0, 1, 2, 3].map((i) => ({ start: i * PART, end: (i + 1) * PART }));
  const data = randomBytes(4 * PART);
  const sha = createHash('sha256').update(data).digest('hex');
  let dir: string;
  let file: ArtifactFile;
  let h: PrefixHasher | undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-prefix-'));
    file = await ArtifactFile.open(join(dir, 'artifact.dump'));
  });
  afterEach(async () => {
    await h?.stop();
    await file.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const hasher = (failures: unknown[] = []) => (h = new PrefixHasher(file, parts, (e) => failures.push(e)));
  /** Writes bytes [from, to) of part `i` as its writer does, and says so. */
  const write = async (hh: PrefixHasher, i: number, from: number, to: number, bytes = data.subarray(from, to)) => {
    await file.writeAt(bytes, from);
    hh.written(i, to);
  };

  it("parts finish out of order and the lead streams: the digest is the whole file's, once the last part is complete", async () => {
    const failures: unknown[] = [];
    const hh = hasher(failures);
    let settled = false;
    const digest = hh.digest().then((d) => ((settled = true), d));
    await write(hh, 2, 2 * PART, 3 * PART);
    hh.complete(2);
    await write(hh, 0, 0, PART / 2);
    await write(hh, 0, PART / 2, PART);
    hh.complete(0);
    await write(hh, 1, PART, PART + PART / 2);
    await write(hh, 3, 3 * PART, 4 * PART);
    hh.complete(3);
    await write(hh, 1, PART + PART / 2, 2 * PART);
    await new Promise((r) => setTimeout(r, 50));
    // Every byte is on disk, but part 2 is not complete (an overrun may still come): no digest yet.
    expect(settled).toBe(false);
    hh.complete(1);
    expect(await digest).toBe(sha);
    expect(failures).toEqual([]);
  });

  it('rewind forgets what an attempt wrote, even once hashed, so its bytes are hashed again as rewritten', async () => {
    const hh = hasher();
    await write(hh, 0, 0, 64 * 1024);
    hh.mark(64 * 1024);
    // The bad attempt: written, reported, then found to run past its range.
    await write(hh, 0, 64 * 1024, PART, Buffer.alloc(PART - 64 * 1024, 0xee));
    await new Promise((r) => setTimeout(r, 50));
    hh.rewind(0, 64 * 1024);
    hh.mark(64 * 1024);
    await write(hh, 0, 64 * 1024, PART);
    hh.release(64 * 1024);
    hh.complete(0);
    for (const i of [1, 2, 3]) {
      await write(hh, i, i * PART, (i + 1) * PART);
      hh.complete(i);
    }
    expect(await hh.digest()).toBe(sha);
  });

  it('a read failure in the hashing thread is reported once and fails the digest', async () => {
    const failures: unknown[] = [];
    // A file of 3 bytes where the parts say 4 MiB: the thread reads past its end.
    const hh = hasher(failures);
    await file.writeAt(data.subarray(0, 3), 0);
    hh.complete(0);
    await expect(hh.digest()).rejects.toThrow(/^Could not read the artifact back from the work directory: EIO\./);
    expect(failures).toHaveLength(1);
  });

  it('stop() ends the thread: no digest comes, and no failure is reported', async () => {
    const failures: unknown[] = [];
    const hh = hasher(failures);
    await write(hh, 0, 0, PART);
    await hh.stop();
    hh.complete(0);
    expect(failures).toEqual([]);
  });
});
