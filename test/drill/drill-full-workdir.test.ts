/**
 * A --work-dir without room for the scratch cluster (issue 22, item 10): initdb runs out of space, and
 * svc says so, naming the work directory and what is free, instead of the hint about permissions it
 * gave before. The work dir is a 24 MiB tmpfs (enough for the preflight's margin, not for a cluster),
 * mounted for one run only in a private mount namespace (`unshare --mount`, as root).
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSecrets, SVC } from '../e2e/helpers.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { mountNamespaceSkipReason } from '../support/mount-namespace.js';

const skip = mountNamespaceSkipReason();
if (skip) console.warn(`test/drill/drill-full-workdir.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('a drill whose work dir is too small for the scratch cluster', { timeout: 120_000 }, () => {
  const h = new DrillE2e();
  beforeAll(() => h.start(), 180_000);
  afterAll(() => h.stop());

  it('initdb fails for want of space: exit 11 naming the work dir and the space free, not permissions', async () => {
    const workDir = h.workDir();
    // A cache of its own: no template to copy, initdb runs.
    const cache = mkdtempSync(join(h.root, 'cache-'));
    const r = await execa(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        `mount -t tmpfs -o size=24m svc-test-full '${workDir}' && exec "$@"`,
        'sh',
        process.execPath,
        SVC,
        'restore',
        'drill',
        'db_orders',
        '--work-dir',
        workDir,
      ],
      { env: h.sb.env('drill', { XDG_CACHE_HOME: cache }), extendEnv: false, reject: false, stdin: 'ignore', timeout: 120_000 },
    );
    const stderr = String(r.stderr);
    expectNoSecrets(`${r.stdout}\n${stderr}`);
    expect(r.exitCode, stderr).toBe(11);
    expect(stderr).toMatch(
      new RegExp(
        `error: initdb of the scratch cluster failed \\(exit 1\\): the work directory ${workDir} has no space left \\([\\d.]+ [KM]iB \\(\\d+ bytes\\) free\\); a scratch cluster needs about 64 MiB, and each restored database more\\.`,
      ),
    );
    expect(stderr).toContain('Free space there, or point --work-dir at a file system with room');
    expect(stderr).not.toContain('searchable');
    // Nothing was asked of the service: the cluster starts before any createRestore.
    expect(h.restoresCreated()).toBe(0);
  });
});
