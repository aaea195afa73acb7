/**
 * `restore create --dry-run` asks the service (cli-contract 7.2): getProfile for restores:write and
 * getBackup for existence, a completed state with an artifact and its size, which the disk check
 * uses. It exits 0 only when the real run could start, and creates, downloads and restores nothing.
 * The real run reads getBackup first too, and goes on with a warning when the token may not read it.
 */
import { readdir } from 'node:fs/promises';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, useRestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/dry-run.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('restore create --dry-run, against a real PostgreSQL and the service', () => {
  const h = useRestoreHarness();
  // After the harness's reset, which clears the handlers of the last test.
  beforeEach(() => {
    h.api.use(http.get('*/api/v1/profile', () => HttpResponse.json(fixture('profile'), { headers: { 'X-Request-ID': 'req_profile_1' } })));
  });

  async function dryRun(database: string) {
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--dry-run'], { env: { SVC_TARGET_DSN: h.dsn(database, true) } });
    return { ...r, workDir };
  }

  /** A dry run, whatever its verdict, leaves nothing: no job, no download, no database, no files. */
  async function expectNothingDone(database: string, workDir: string): Promise<void> {
    expect(h.createRestoreRequests()).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(await h.databaseExists(database)).toBe(false);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
  }

  it('a restore that could start: exit 0, the plan with the artifact size, after getProfile and getBackup only', async () => {
    const r = await dryRun('dry_ok');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Dry run: the restore could start. Nothing was created, downloaded or restored.');
    expect(r.stdout).toMatch(new RegExp(`^backup job: +${BACKUP_ID} \\(completed, artifact .*\\(${h.info.sizeBytes} bytes\\)\\)$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^target: +${h.redacted('dry_ok').replaceAll('.', '\\.')}$`, 'm'));
    expect(r.stdout).toMatch(/^create database: +yes \(TEMPLATE template0\)$/m);
    expect(r.stdout).toMatch(/^work dir: +.* \(room for the artifact\)$/m);
    expect(h.api.exchanges.map((e) => `${e.method} ${e.url.pathname}`)).toEqual(['GET /api/v1/profile', `GET /api/v1/backups/${BACKUP_ID}`]);
    await expectNothingDone('dry_ok', r.workDir);
  });

  it('a token without restores:write: exit 4 naming the scope, before getBackup', async () => {
    h.api.use(
      http.get('*/api/v1/profile', () => HttpResponse.json({ profile: { ...fixture('profile').profile, scopes: ['databases:read', 'restores:read'] } })),
    );
    const r = await dryRun('dry_scope');
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('This API key cannot create restores: it lacks restores:write. The real run would be refused.');
    expect(r.stderr).toContain('required scope: restores:write');
    expect(h.api.exchanges.map((e) => e.url.pathname)).toEqual(['/api/v1/profile']);
    await expectNothingDone('dry_scope', r.workDir);
  });

  it('a backup that does not exist: exit 5 with the request id', async () => {
    h.api.use(
      http.get(`*/api/v1/backups/${BACKUP_ID}`, () => HttpResponse.json(fixture('error-404'), { status: 404, headers: { 'X-Request-ID': 'req_nf_1' } })),
    );
    const r = await dryRun('dry_missing');
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('request id: req_nf_1');
    await expectNothingDone('dry_missing', r.workDir);
  });

  it.each([
    [
      'failed (not completed)',
      () => ({ ...fixture('backup-get-failed'), id: BACKUP_ID }),
      `Backup job ${BACKUP_ID} is failed_terminal, not completed. Nothing was created.`,
    ],
    [
      'completed without an artifact',
      () => ({ ...h.backupBody(), artifact: undefined }),
      `Backup job ${BACKUP_ID} is completed but has no artifact. Nothing was created.`,
    ],
  ])('a backup %s: exit 7, and it says which backups can be restored', async (_what, body, message) => {
    h.api.use(http.get(`*/api/v1/backups/${BACKUP_ID}`, () => HttpResponse.json(body())));
    const r = await dryRun('dry_state');
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('Pick a completed backup: svc backups list db_');
    await expectNothingDone('dry_state', r.workDir);
  });

  it('an artifact larger than the work dir: exit 2 with the figures', async () => {
    h.api.use(
      http.get(`*/api/v1/backups/${BACKUP_ID}`, () =>
        HttpResponse.json({ ...h.backupBody(), artifact: { ...(h.backupBody().artifact as object), sizeBytes: 2 ** 45 } }),
      ),
    );
    const r = await dryRun('dry_space');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Not enough free space in ${r.workDir}`);
    expect(r.stderr).toMatch(/the artifact needs 32\.0 TiB/);
    await expectNothingDone('dry_space', r.workDir);
  });

  it('the real run with a token that may not read the backup (403 on getBackup): a warning, then the restore', async () => {
    h.api.use(
      http.get(`*/api/v1/backups/${BACKUP_ID}`, () =>
        HttpResponse.json({ error: { ...fixture('error-403').error, requiredScope: 'databases:read' } }, { status: 403 }),
      ),
    );
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: { SVC_TARGET_DSN: h.dsn('dry_forbidden', true) } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: This API key cannot read backup ${BACKUP_ID} (it needs databases:read): the disk check waits for the restore job's coordinates.`,
    );
    expect(h.createRestoreRequests()).toHaveLength(1);
    expect(await h.snapshot('dry_forbidden')).toEqual(h.source);
    await h.dropDatabase('dry_forbidden');
  });
});
