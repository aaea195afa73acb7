import { afterEach, expect, it } from 'vitest';
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
