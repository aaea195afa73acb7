import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnSvc } from '../support/built-cli.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { useRestoreHarness, waitFor } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/signals-double.test.ts skipped: ${skip}`);

/** How many tries; scripts/double-signal.mjs runs this file with many more (the race was seen in 1 of 6 tries). */
const RUNS = Number(process.env.SVC_DOUBLE_SIGNAL_RUNS ?? 30);

/**
 * A double Ctrl-C, the second 0-50 ms after the first (cli-contract 7.9 and 7.15): whenever it lands,
 * in the clean-up of the first included, no PGPASSFILE (it holds the DSN's password) and no artifact
 * is left, and svc says it removed them only when it did. Built CLI, SIGINT during the download of a
 * restore into the real cluster, each try with its own TMPDIR and work dir.
 */
describe.skipIf(!!skip)('a second SIGINT 0-50 ms after the first (built CLI, many tries)', () => {
  const h = useRestoreHarness({ built: true });

  it(`leaves no svc-pgpass-* in TMPDIR and nothing in the work dir, in ${RUNS} tries`, { timeout: 20_000 + RUNS * 5_000 }, async () => {
    h.artifact.setMode({ slow: { bytesPerChunk: 4096, delayMs: 20 } });
    const left: string[] = [];
    const falseClaims: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
      const workDir = await h.workDir();
      const child = spawnSvc(['restore', 'run', '--work-dir', workDir], {
        env: h.env({ TMPDIR: tmp, SVC_TARGET_DSN: h.dsn(`double_${i}`, true) }),
        input: JSON.stringify(h.restoreBody('new_database')),
      });
      await waitFor('a partial artifact on disk', async () => {
        for (const run of await readdir(workDir)) {
          if ((await stat(join(workDir, run, 'artifact.dump')).then((s) => s.size, () => 0)) > 0) return true;
        }
        return undefined;
      });
      child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, (i * 7) % 51));
      child.kill('SIGINT');
      const r = await child;
      h.record(String(r.stdout), String(r.stderr));
      expect(r.exitCode, String(r.stderr)).toBe(130);
      const pgpass = (await readdir(tmp)).filter((n) => n.startsWith('svc-pgpass-'));
      const files = [...pgpass, ...(await readdir(workDir))];
      if (files.length) {
        left.push(`try ${i} (${(i * 7) % 51} ms): ${files.join(', ')}`);
        if (String(r.stderr).includes('were removed')) falseClaims.push(`try ${i}`);
      }
    }
    expect(falseClaims).toEqual([]);
    expect(left).toEqual([]);
  });
});
