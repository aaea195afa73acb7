import { readdir } from 'node:fs/promises';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, useRestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore-pg/artifact-faults.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('restore create: a faulty artifact store, a real pg_restore and PostgreSQL', () => {
  const h = useRestoreHarness();

  const create = (database: string, workDir: string) =>
    h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: { SVC_TARGET_DSN: h.dsn(database, true) } });

  /** An integrity failure: exit 10, pg_restore never started, nothing left on disk or in the cluster. */
  async function expectNothingRestored(r: { code: number }, database: string, workDir: string): Promise<void> {
    expect(r.code).toBe(10);
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.databaseExists(database)).toBe(false);
    expect(await h.pgpassLeftovers()).toEqual([]);
    expect(h.createRestoreRequests()).toHaveLength(1);
  }

  it.each([
    ['larger', 7],
    ['smaller', -7],
  ])('an expectedSizeBytes %s than the artifact is exit 10 and nothing is restored', async (_what, delta) => {
    h.coords.expectedSizeBytes = h.info.sizeBytes + delta;
    const workDir = await h.workDir();
    const r = await create('faults_size', workDir);
    await expectNothingRestored(r, 'faults_size', workDir);
    expect(r.stderr).toContain(
      `Artifact size mismatch: the artifact store announces ${h.info.sizeBytes} bytes, the service expected ${h.info.sizeBytes + delta}.`,
    );
  });

  it('a backup whose artifact (from getBackup) does not fit the work dir: exit 2 before any restore job exists', async () => {
    h.api.use(
      http.get(`*/api/v1/backups/${BACKUP_ID}`, () =>
        HttpResponse.json({ ...h.backupBody(), artifact: { ...(h.backupBody().artifact as object), sizeBytes: 2 ** 52 } }),
      ),
    );
    const workDir = await h.workDir();
    const r = await create('faults_space_backup', workDir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Not enough free space in ${workDir}`);
    expect(r.stderr).toMatch(/the artifact needs 4096\.0 TiB/);
    expect(r.stderr).toContain('pass --work-dir on a larger disk');
    expect(h.createRestoreRequests()).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
  });

  it('coordinates whose expectedSizeBytes (2^52) exceed the free space: exit 10 with the figures, before a byte is downloaded', async () => {
    h.coords.expectedSizeBytes = 2 ** 52;
    const workDir = await h.workDir();
    const r = await create('faults_space', workDir);
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(
      new RegExp(
        `Not enough free space in ${workDir}: [\\d.]+ \\w+ \\(\\d+ bytes\\) free, the restore job's artifact is 4096\\.0 TiB \\(4503599627370496 bytes\\)\\. Nothing was downloaded\\.`,
      ),
    );
    expect(r.stderr).toContain('pass --work-dir on a larger disk');
    expect(h.artifact.requests).toEqual([]);
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.databaseExists('faults_space')).toBe(false);
    expect(await h.pgpassLeftovers()).toEqual([]);
  });

  it('one flipped byte is a SHA-256 mismatch: exit 10, the file deleted, pg_restore never started', async () => {
    h.artifact.setMode({ corrupt: 5000 });
    const workDir = await h.workDir();
    const r = await create('faults_corrupt', workDir);
    await expectNothingRestored(r, 'faults_corrupt', workDir);
    expect(r.stderr).toContain(`the service expected ${h.info.sha256}. The file was deleted and nothing was restored.`);
    expect(r.stderr).toMatch(/Artifact SHA-256 mismatch: got [0-9a-f]{64}/);
    expect(r.stderr).toContain('Run the restore again');
    expect(h.artifact.requests).toHaveLength(1);
  });

  it('an expired presigned URL (S3 403 "Request has expired") is exit 10 and says to run the restore again', async () => {
    h.artifact.setMode('expired');
    const workDir = await h.workDir();
    const r = await create('faults_expired', workDir);
    await expectNothingRestored(r, 'faults_expired', workDir);
    expect(r.stderr).toContain('The artifact download URL has expired (HTTP 403 "Request has expired").');
    expect(r.stderr).toContain('Run the restore again to get fresh download coordinates');
    // A 403 is final: not retried.
    expect(h.artifact.requests.map((q) => q.status)).toEqual([403]);
  });

  it('a transfer cut midway resumes with a Range request and the restore succeeds', async () => {
    h.artifact.setMode({ cutAfter: 40_000 });
    const workDir = await h.workDir();
    const r = await create('faults_resumed', workDir);
    expect(r.code, r.stderr).toBe(0);
    const [first, second, ...more] = h.artifact.requests;
    expect(more).toEqual([]);
    expect(first!.headers.range).toBeUndefined();
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(second!.headers.range ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(40_000);
    expect(second!.status).toBe(206);
    expect(r.stderr).toContain(`resuming at byte ${resumedAt} of ${h.info.sizeBytes}`);
    expect(r.stdout).toContain(h.info.sha256);
    expect(await h.snapshot('faults_resumed')).toEqual(h.source);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgRestoreRuns()).toHaveLength(1);
  });

  it('a server that ignores Range makes it start over cleanly, and the restore succeeds', async () => {
    h.artifact.setMode({ cutAfter: 40_000, ignoreRange: true });
    const workDir = await h.workDir();
    const r = await create('faults_restarted', workDir);
    expect(r.code, r.stderr).toBe(0);
    const [first, second, ...more] = h.artifact.requests;
    expect(more).toEqual([]);
    expect(first!.headers.range).toBeUndefined();
    expect(second!.headers.range).toMatch(/^bytes=\d+-$/);
    expect(second!.status).toBe(200);
    expect(r.stderr).toContain('The artifact server ignored the Range request; downloading from the start again.');
    expect(await h.snapshot('faults_restarted')).toEqual(h.source);
    expect(await readdir(workDir)).toEqual([]);
  });

  it('across every case: no secret in any output, no Authorization to the artifact store', () => {
    expect(h.outputs.length).toBeGreaterThanOrEqual(12);
    for (const text of h.outputs) for (const s of h.secrets()) expect(text).not.toContain(s);
    const requests = [...h.artifactRequestsSeen, ...h.allArtifactRequests()];
    expect(requests.length).toBeGreaterThanOrEqual(7);
    for (const req of requests) expect(req.headers.authorization).toBeUndefined();
  });
});
