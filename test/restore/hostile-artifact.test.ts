/**
 * Issue 11, defects 3 and 9 on the artifact route: `svc restore create` (the built CLI, a real
 * PostgreSQL) whose createRestore points at a hostile artifact store. An error body that never ends
 * is read for at most 64 KiB; a 200 announcing more than expectedSizeBytes is refused unread; a
 * 200 that never ends stops at the expected size; a presigned URL that is not http(s) is never
 * fetched; a size no disk holds stops the run before a byte is asked for. Every one is exit 10,
 * with nothing restored, nothing left on disk and the peak RSS under 256 MiB.
 */
import { readdir } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanupBuiltCli, ensureBuilt, spawnSvc } from '../support/built-cli.js';
import { announcing, ARTIFACT_NAME, endless, HostileServer, MiB, OPEN_S3_ERROR, SIZE_2_52, SOCKET_BUFFERS_MAX } from '../support/hostile-server.js';
import { measurePeakRss, RSS_BUDGET_MIB } from '../support/peak-rss.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, RestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/hostile-artifact.test.ts skipped: ${skip}`);

/** What a reader that stops at 64 KiB can still leave counted on the server: socket buffers, not the body. */
const SENT_MAX = 64 * 1024 + SOCKET_BUFFERS_MAX;
const ARTIFACT_PATH = `/artifacts/${ARTIFACT_NAME}`;

describe.skipIf(!!skip)('restore create against a hostile artifact store (built CLI, real PostgreSQL)', () => {
  const h = new RestoreHarness();
  const hostile = new HostileServer();
  const peaks: string[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    await Promise.all([h.start(), hostile.start()]);
  }, 180_000);
  afterAll(async () => {
    if (peaks.length) console.info(`peak RSS of the built CLI against hostile artifact answers (MiB):\n  ${peaks.join('\n  ')}`);
    await Promise.all([h.stop(), hostile.stop()]);
    cleanupBuiltCli();
  });
  beforeEach(async () => {
    await h.reset();
    hostile.reset();
    h.coords.presignedS3Url = hostile.presignedUrl();
  });
  afterEach(() => h.expectNoSecretsLeft());

  /** The built CLI, so the peak RSS is its own; it must end by itself (the spawn timeout only catches a hang). */
  async function create(database: string, workDir: string) {
    const rss = measurePeakRss(h.env({ SVC_TARGET_DSN: h.dsn(database, true) }));
    const r = await spawnSvc(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: rss.env, timeoutMs: 120_000 });
    expect(r.timedOut, 'svc restore create did not end').toBe(false);
    const [stdout, stderr] = [String(r.stdout), String(r.stderr)];
    h.record(stdout, stderr);
    await vi.waitFor(() => expect(hostile.sent.every((s) => s.done)).toBe(true));
    const peakMiB = rss.mib();
    const sent = hostile.sentTo(ARTIFACT_PATH).map((s) => `${(s.bytes / MiB).toFixed(1)} MiB`);
    peaks.push(`${peakMiB.toFixed(1)}  ${database}  (artifact store sent ${sent.join(' + ') || 'nothing'})`);
    return { code: r.exitCode, stdout, stderr, peakMiB };
  }

  /** Exit 10 with nothing restored: no pg_restore, an empty work dir, no database, no PGPASSFILE, one createRestore. */
  async function expectNothingRestored(r: { code: number | undefined; stdout: string; peakMiB: number }, database: string, workDir: string) {
    expect(r.code).toBe(10);
    expect(r.stdout).toBe('');
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.databaseExists(database)).toBe(false);
    expect(await h.pgpassLeftovers()).toEqual([]);
    expect(h.createRestoreRequests()).toHaveLength(1);
    expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
  }

  it.each([
    [403, 1, 'The artifact store refused the download (HTTP 403).'],
    [404, 1, 'The artifact download failed with HTTP 404.'],
    [500, 5, 'The artifact download failed for good: HTTP 500.'],
  ])('an endless %i error body: exit 10 after %i request(s), each cut off after 64 KiB', async (status, requests, message) => {
    hostile.artifact(endless(status, { prefix: OPEN_S3_ERROR, contentType: 'application/xml' }));
    const workDir = await h.workDir();
    const r = await create(`hostile_${status}`, workDir);
    await expectNothingRestored(r, `hostile_${status}`, workDir);
    expect(r.stderr).toContain(message);
    const sent = hostile.sentTo(ARTIFACT_PATH);
    expect(sent).toHaveLength(requests);
    for (const s of sent) {
      expect(s).toMatchObject({ status, hungUp: true });
      expect(s.bytes).toBeLessThan(SENT_MAX);
    }
  });

  it('a 200 announcing 1 TiB for an artifact the service says is small: exit 10 without reading the body', async () => {
    hostile.artifact(announcing(2 ** 40, endless(200, { prefix: 'PGDMP', contentType: 'application/octet-stream' })));
    const workDir = await h.workDir();
    const r = await create('hostile_announced', workDir);
    await expectNothingRestored(r, 'hostile_announced', workDir);
    expect(r.stderr).toContain(`Artifact size mismatch: the artifact store announces ${2 ** 40} bytes, the service expected ${h.info.sizeBytes}.`);
    const [sent, ...more] = hostile.sentTo(ARTIFACT_PATH);
    expect(more).toEqual([]);
    expect(sent).toMatchObject({ status: 200, hungUp: true });
    expect(sent!.bytes).toBeLessThan(SENT_MAX);
  });

  it('a 200 that never ends (no Content-Length): exit 10 once more than the expected size has arrived', async () => {
    hostile.artifact(endless(200, { prefix: 'PGDMP', contentType: 'application/octet-stream' }));
    const workDir = await h.workDir();
    const r = await create('hostile_endless_200', workDir);
    await expectNothingRestored(r, 'hostile_endless_200', workDir);
    expect(r.stderr).toContain(`Artifact size mismatch: more than the expected ${h.info.sizeBytes} bytes arrived. Nothing was restored.`);
    const [sent, ...more] = hostile.sentTo(ARTIFACT_PATH);
    expect(more).toEqual([]);
    expect(sent).toMatchObject({ status: 200, hungUp: true });
    expect(sent!.bytes).toBeLessThan(SENT_MAX);
  });

  it.each(['file', 'data', 'ftp'] as const)(
    'a presigned URL with the %s: scheme: exit 10 at once, one createRestore, nothing fetched or retried',
    async (scheme) => {
      h.coords.presignedS3Url = hostile.presignedUrl(scheme);
      const workDir = await h.workDir();
      const r = await create(`hostile_scheme_${scheme}`, workDir);
      await expectNothingRestored(r, `hostile_scheme_${scheme}`, workDir);
      expect(r.stderr).toContain(`The artifact download URL uses the "${scheme}:" scheme; only http and https are fetched.`);
      expect(hostile.exchanges).toEqual([]);
    },
  );

  it('expectedSizeBytes of 2^52: exit 10 before the artifact store is asked for a byte', async () => {
    h.coords.expectedSizeBytes = SIZE_2_52;
    hostile.artifact(endless(200, { prefix: 'PGDMP', contentType: 'application/octet-stream' }));
    const workDir = await h.workDir();
    const r = await create('hostile_2_52', workDir);
    await expectNothingRestored(r, 'hostile_2_52', workDir);
    expect(r.stderr).toContain("the restore job's artifact is 4096.0 TiB (4503599627370496 bytes). Nothing was downloaded.");
    expect(hostile.exchanges).toEqual([]);
  });
});
