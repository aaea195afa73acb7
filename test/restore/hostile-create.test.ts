/**
 * Issue 11, defects 2 and 5 in the restore engine, against a real PostgreSQL: a createRestore 202
 * whose body never ends (the built CLI: exit 1, the PGPASSFILE written at preflight removed, nothing
 * left in the work dir, peak RSS under 256 MiB), and a restore job that echoes the lock token and
 * the presigned URL (in an extra field and in errorMessage) to `restore create` and `restore run`,
 * which know both: neither reaches stdout, stderr or the --receipt file, human or --json. And a getBackup announcing
 * an artifact of 2^52 bytes stops the run before a restore job exists.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, ensureBuilt, spawnSvc } from '../support/built-cli.js';
import { backupSized, endless, HostileServer, MiB, openJson, restoreCreated, SIZE_2_52, SOCKET_BUFFERS_MAX } from '../support/hostile-server.js';
import { json } from '../support/loopback-server.js';
import { measurePeakRss, RSS_BUDGET_MIB } from '../support/peak-rss.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, LOCK_TOKEN, RestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/hostile-create.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('restore create and restore run against a hostile service (real PostgreSQL)', () => {
  const h = new RestoreHarness();
  const hostile = new HostileServer();

  beforeAll(async () => {
    await ensureBuilt();
    await Promise.all([h.start(), hostile.start()]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([h.stop(), hostile.stop()]);
    cleanupBuiltCli();
  });
  beforeEach(async () => {
    await h.reset();
    hostile.reset();
    // The hostile service is the API; getBackup answers as a sane one would.
    hostile.api('GET', `/backups/${BACKUP_ID}`, json(200, h.backupBody()));
  });
  afterEach(() => h.expectNoSecretsLeft());

  const createRestores = () => hostile.requestsTo('/restores').filter((e) => e.method === 'POST');

  it('an endless createRestore 202 (built CLI): exit 1, not retried, the PGPASSFILE removed, the work dir empty, peak RSS under 256 MiB', async () => {
    // The prefix is a real 202 body, coordinates included: svc must drop it without using any of it.
    hostile.api('POST', '/restores', endless(202, { prefix: openJson(restoreCreated(h.coords)) }));
    const workDir = await h.workDir();
    const rss = measurePeakRss(h.env({ SVC_BASE_URL: hostile.baseUrl, SVC_TARGET_DSN: h.dsn('hostile_202', true) }));
    const r = await spawnSvc(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: rss.env, timeoutMs: 120_000 });
    expect(r.timedOut, 'svc restore create did not end').toBe(false);
    h.record(String(r.stdout), String(r.stderr));
    console.info(`peak RSS of the built CLI against an endless createRestore 202: ${rss.mib().toFixed(1)} MiB`);

    expect(r.exitCode).toBe(1);
    expect(String(r.stderr)).toContain('error: The response of createRestore (POST /api/v1/restores) is larger than 16 MiB; it was dropped.');
    expect(String(r.stdout)).toBe('');
    expect(createRestores()).toHaveLength(1);
    const [sent] = hostile.sentTo('/restores');
    expect(sent).toMatchObject({ status: 202, hungUp: true });
    // svc reads 16 MiB of it; socket buffers come on top.
    expect(sent!.bytes).toBeLessThan(16 * MiB + SOCKET_BUFFERS_MAX);
    expect(await h.pgpassLeftovers()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await h.databaseExists('hostile_202')).toBe(false);
    expect(rss.mib()).toBeLessThan(RSS_BUDGET_MIB);
  });

  it('a backup whose artifact (getBackup) is 2^52 bytes: exit 2 before any restore job exists, the PGPASSFILE removed', async () => {
    hostile.api('GET', `/backups/${BACKUP_ID}`, json(200, backupSized(SIZE_2_52, h.backupBody())));
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], {
      env: { SVC_BASE_URL: hostile.baseUrl, SVC_TARGET_DSN: h.dsn('hostile_backup_2_52', true) },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the artifact needs 4096\.0 TiB/);
    expect(createRestores()).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
  });

  const modes = [
    ['human', []],
    ['--json', ['--json']],
  ] as const;

  /** The restore succeeded and printed nothing of the echoed secrets: the echoing fields read [redacted], in the --receipt file too. */
  function expectScrubbed(r: { code: number; stdout: string; stderr: string }, json: boolean, receiptPath: string): void {
    const receipt = readFileSync(receiptPath, 'utf8');
    expect(receipt).not.toContain(LOCK_TOKEN);
    expect((JSON.parse(receipt) as { restoreJobId: string }).restoreJobId).toBe('rj_hostile_[redacted]');
    expect(r.code, r.stderr).toBe(0);
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain(LOCK_TOKEN);
      expect(text).not.toContain(h.artifact.url);
      expect(text).not.toContain(h.artifact.signature);
    }
    if (!json) {
      expect(r.stdout).toMatch(/^restore job: +rj_hostile_\[redacted\]$/m);
      return;
    }
    const { restoreJob } = JSON.parse(r.stdout) as { restoreJob: Record<string, unknown> };
    expect(restoreJob.debug).toEqual({ lockToken: '[redacted]', presignedS3Url: '[redacted]' });
    expect(restoreJob.errorMessage).toBe('worker failed (lock [redacted] from [redacted])');
    expect(restoreJob.id).toBe('rj_hostile_[redacted]');
  }

  it.each(modes)('restore create, %s: a 202 whose restoreJob echoes the lock token and presigned URL', async (mode, flags) => {
    hostile.api('POST', '/restores', json(202, restoreCreated(h.coords, { echo: true })));
    const database = `hostile_echo_create_${mode === 'human' ? 'h' : 'j'}`;
    const workDir = await h.workDir();
    const receipt = join(workDir, 'receipt.json');
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receipt, ...flags], {
      env: { SVC_BASE_URL: hostile.baseUrl, SVC_TARGET_DSN: h.dsn(database, true) },
    });
    expectScrubbed(r, mode === '--json', receipt);
    expect(createRestores()).toHaveLength(1);
    expect(await h.databaseExists(database)).toBe(true);
    await h.dropDatabase(database);
  });

  it.each(modes)('restore run, %s: a createRestore body on stdin whose restoreJob echoes the lock token and presigned URL', async (mode, flags) => {
    const database = `hostile_echo_run_${mode === 'human' ? 'h' : 'j'}`;
    const workDir = await h.workDir();
    const receipt = join(workDir, 'receipt.json');
    const r = await h.cli(['restore', 'run', '--work-dir', workDir, '--receipt', receipt, ...flags], {
      stdin: JSON.stringify(restoreCreated(h.coords, { echo: true })),
      env: { SVC_TARGET_DSN: h.dsn(database, true) },
    });
    expectScrubbed(r, mode === '--json', receipt);
    expect(hostile.exchanges).toEqual([]);
    expect(await h.databaseExists(database)).toBe(true);
    await h.dropDatabase(database);
  });
});
