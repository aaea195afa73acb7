/**
 * A restore that stops in the verify phase, through the built CLI against real PostgreSQL: the drill
 * reads the phase and exit code from the engine's result and fails the check they belong to
 * (cli-contract 9, step 4; docs/decisions.md "Which check an archive that cannot be restored fails").
 * The artifact's size and SHA-256 match in both cases: a file that is no pg_dump archive fails
 * artifact_verified (exit 10); an intact plain-SQL dump, which svc does not restore, fails restore_clean (exit 11).
 */
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSvc } from '../support/built-cli.js';
import { processesIn } from '../support/drill-e2e.js';
import { drillApi, DRILLED } from '../support/drill-signals.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { useRestoreHarness } from '../support/restore-harness.js';
import type { ArtifactInfo } from '../support/seed.js';
import type { ArtifactServer } from '../support/artifact-server.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-verify-failures.test.ts skipped: ${skip}`);

const FILES = {
  garbage: Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x50, 0x4b, 0x03, 0x04, ...Array<number>(4096).fill(7)]),
  plain: Buffer.from('--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\nCREATE TABLE public.t (a int);\n'),
};
type Key = keyof typeof FILES;

describe.skipIf(!!skip)('a drill whose restore stops in the verify phase', { timeout: 180_000 }, () => {
  const h = useRestoreHarness({ built: true });
  const archives = {} as Record<Key, { server: ArtifactServer; info: ArtifactInfo }>;

  beforeAll(async () => {
    await chmod(h.scratch, 0o711);
    for (const key of Object.keys(FILES) as Key[]) {
      const file = join(h.scratch, `${key}.pgdump`);
      await writeFile(file, FILES[key]);
      // Neither is a pg_dump archive, so the seed's artifactInfo cannot read their header: the size and digest are all the service states.
      const info = { sizeBytes: FILES[key].length, sha256: createHash('sha256').update(FILES[key]).digest('hex') } as ArtifactInfo;
      archives[key] = { server: await h.serve(file), info };
    }
  }, 300_000);

  async function drill(key: Key) {
    h.artifact = archives[key].server;
    h.info = archives[key].info;
    await h.reset();
    drillApi(h);
    const dir = await mkdtemp(join(h.scratch, 'drill-'));
    const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
    await chmod(dir, 0o711);
    await chmod(tmp, 0o755);
    try {
      const r = await spawnSvc(['restore', 'drill', DRILLED, '--json', '--work-dir', dir], {
        env: h.env({ TMPDIR: tmp, SVC_PG_BINDIR: h.cluster.serverBinDir }),
        timeoutMs: 120_000,
      });
      h.record(String(r.stdout), String(r.stderr));
      expect(processesIn(dir)).toEqual([]);
      return { code: r.exitCode, stderr: String(r.stderr), db: JSON.parse(String(r.stdout)).drill.databases[0] };
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(tmp, { recursive: true, force: true });
    }
  }

  const statuses = (db: { checks: Array<{ name: string; status: string; detail?: string }> }) => db.checks.map((c) => [c.name, c.status, c.detail ?? null]);

  it('a file that is no pg_dump archive fails artifact_verified (exit 10); the receipt names the verify phase', async () => {
    const r = await drill('garbage');
    expect(r.code, r.stderr).toBe(13);
    const message = r.db.failure.message as string;
    expect(message).toContain('not a pg_dump archive');
    expect(statuses(r.db)).toEqual([
      ['backup_selected', 'passed', expect.any(String)],
      ['artifact_verified', 'failed', message],
      ['restore_clean', 'skipped', 'artifact_verified failed'],
      ['objects_present', 'skipped', 'artifact_verified failed'],
      ['data_present', 'skipped', 'nothing restored'],
      ['rows_match', 'skipped', 'nothing restored'],
    ]);
    expect(r.db).toMatchObject({ result: 'failed', exitCode: 10, failure: { check: 'artifact_verified', code: 'artifact_integrity' } });
    expect(r.db.receipt).toMatchObject({ outcome: 'failed', failure: { phase: 'verify', exitCode: 10, message } });
    expect(r.stderr).toContain(`${DRILLED}: failed at artifact_verified: `);
  });

  it('an intact plain-SQL dump passes artifact_verified and fails restore_clean (exit 11); the receipt names the verify phase', async () => {
    const r = await drill('plain');
    expect(r.code, r.stderr).toBe(13);
    const message = r.db.failure.message as string;
    expect(message).toContain('a plain-SQL dump (pg_dump -Fp)');
    expect(statuses(r.db)).toEqual([
      ['backup_selected', 'passed', expect.any(String)],
      ['artifact_verified', 'passed', null],
      ['restore_clean', 'failed', message],
      ['objects_present', 'skipped', 'restore_clean failed'],
      ['data_present', 'skipped', 'nothing restored'],
      ['rows_match', 'skipped', 'nothing restored'],
    ]);
    expect(r.db).toMatchObject({ result: 'failed', exitCode: 11, failure: { check: 'restore_clean', code: 'local_tool_failed' } });
    expect(r.db.receipt).toMatchObject({ outcome: 'failed', failure: { phase: 'verify', exitCode: 11, message } });
  });
});
