import { afterEach, describe, expect, it } from 'vitest';
import type { BackupJobDetail } from '../../src/api/schemas/backups.js';
import { FIXTURE_EPOCH } from '../../src/sandbox/timestamps.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { fixture } from '../support/fixtures.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => sandbox?.stop());

async function firstDatabase(now: Date, recentTimestamps: boolean) {
  sandbox = await startSandbox({ port: 0, now: () => now, recentTimestamps });
  const res = await fetch(`${sandbox.baseUrl}/api/v1/databases/db_orders`, {
    headers: { authorization: `Bearer ${sandbox.token('full')}` },
  });
  return ((await res.json()) as { database: { lastSuccessfulBackupAt: string; createdAt: string } }).database;
}

it('recentTimestamps moves fixture times so the fixture epoch falls on the start: "5h ago" stays 5h ago', async () => {
  const now = new Date(FIXTURE_EPOCH.getTime() + 10 * 86_400_000);
  const written = fixture('database-get').database;
  const db = await firstDatabase(now, true);
  expect(Date.parse(db.lastSuccessfulBackupAt) - Date.parse(written.lastSuccessfulBackupAt)).toBe(10 * 86_400_000);
  expect(now.getTime() - Date.parse(db.lastSuccessfulBackupAt)).toBe(FIXTURE_EPOCH.getTime() - Date.parse(written.lastSuccessfulBackupAt));
});

it('without it the fixtures are served as written', async () => {
  const db = await firstDatabase(new Date(FIXTURE_EPOCH.getTime() + 86_400_000), false);
  expect(db.createdAt).toBe(fixture('database-get').database.createdAt);
});

describe('with recentTimestamps, backup times stay a consistent history (cli-contract 7 step 0 picks by completedAt)', () => {
  const now = new Date(FIXTURE_EPOCH.getTime() + 37 * 86_400_000 + 123_456);
  const get = async (path: string) => {
    const res = await fetch(`${sandbox!.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${sandbox!.token('drill')}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as any;
  };
  /** Every backup of the database as getBackup shows it. */
  const backupsOf = async (databaseId: string): Promise<BackupJobDetail[]> =>
    Promise.all((await get(`/databases/${databaseId}/backups`)).backupJobs.map((b: { id: string }) => get(`/backups/${b.id}`)));
  const newestCompleted = (jobs: BackupJobDetail[]) =>
    jobs.filter((b) => b.state === 'completed' && b.artifact).sort((a, b) => Date.parse(b.completedAt!) - Date.parse(a.completedAt!))[0]?.id ?? null;

  it.each([
    ['db_orders', 'bj_0007'],
    ['db_billing', 'bj_0005'],
    ['db_analytics', null],
  ])('%s: times in state order and in the past; the newest completed backup is %s', async (databaseId, expected) => {
    sandbox = await startSandbox({ port: 0, now: () => now, recentTimestamps: true });
    const jobs = await backupsOf(databaseId);
    for (const job of jobs) {
      const times = [job.enqueuedAt, job.claimedAt, job.startedAt, job.completedAt].filter((t): t is string => !!t).map(Date.parse);
      expect(times, job.id).toEqual([...times].sort((a, b) => a - b));
      expect(Math.max(...times), job.id).toBeLessThanOrEqual(now.getTime());
    }
    expect(newestCompleted(jobs)).toBe(expected);
    // Moved by whole seconds, as the sandbox's own jobs are stamped: no fraction appears though the clock has one.
    for (const job of jobs) expect(job.enqueuedAt, job.id).toMatch(/:\d{2}Z$/);
    const completedAt = jobs.filter((b) => b.completedAt).map((b) => b.completedAt);
    expect(new Set(completedAt).size).toBe(completedAt.length);
  });

  it('a backup triggered now becomes the newest completed one; recovery still points at the fixture backup', async () => {
    sandbox = await startSandbox({ port: 0, now: () => now, recentTimestamps: true });
    const full = { authorization: `Bearer ${sandbox.token('full')}`, 'content-type': 'application/json', 'idempotency-key': 'recent-1' };
    const trigger = await fetch(`${sandbox.baseUrl}/api/v1/databases/db_orders/backups`, { method: 'POST', headers: full, body: '{}' });
    const { backupJobId } = (await trigger.json()) as { backupJobId: string };
    for (let i = 0; i < 4; i++) await get(`/backups/${backupJobId}`);
    expect(newestCompleted(await backupsOf('db_orders'))).toBe(backupJobId);

    const incident = encodeURIComponent(now.toISOString());
    const candidate = await get(`/databases/db_orders/recovery/candidate?incidentTime=${incident}`);
    const summary = await get('/databases/db_orders/recovery/summary');
    expect([candidate.recommended.windowId, summary.latest.windowId]).toEqual(['rw_0003', 'rw_0003']);
    expect((await get('/recovery/windows/rw_0003/proof')).proof.baselineArtifact.backupJobId).toBe('bj_0007');
  });
});
