/**
 * A sandbox data set that serves another archive under one of fixtures/' artifact names (e.g. a dump
 * made from a server of the major under test as `acme-orders`, which db_orders' backups serve): a
 * copy of fixtures/ (api/, sandbox/, artifacts/) with the file and its metadata replaced. The sandbox
 * derives each backup's size and digest from the file it serves, so every backup of it agrees.
 */
import { cpSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from './fixtures.js';
import { artifactInfo } from './seed.js';

export async function writeSandboxDataWithArtifact(dir: string, name: 'acme-orders' | 'billing', archive: string): Promise<void> {
  await writeSandboxDataWithArtifacts(dir, { [name]: archive });
}

/** The same with both archives replaced at once: db_orders' and db_billing's backups each serve their own dump. */
export async function writeSandboxDataWithArtifacts(dir: string, archives: Partial<Record<'acme-orders' | 'billing', string>>): Promise<void> {
  for (const sub of ['api', 'sandbox', 'artifacts']) cpSync(join(FIXTURES_DIR, sub), join(dir, sub), { recursive: true });
  for (const [name, archive] of Object.entries(archives)) {
    copyFileSync(archive, join(dir, 'artifacts', `${name}.pgdump`));
    writeFileSync(join(dir, 'artifacts', `${name}.json`), `${JSON.stringify(await artifactInfo(archive), null, 2)}\n`);
  }
}

/** The database of the drift data set, and its two completed backups: the older whole, the newest after 90% of its orders were lost. */
export const DRIFT = { databaseId: 'db_inventory', wholeBackup: 'bj_0010', shrunkBackup: 'bj_0011' } as const;

/**
 * fixtures/ plus db_inventory (org_acme), whose older backup (bj_0010) serves acme-orders and whose
 * newest (bj_0011) serves orders-shrunk: a backup that restores faithfully but lost 90% of a table.
 * `npm run demo` and test/drill/drill-drift-sandbox.test.ts drill it; the default data set stays as
 * it is, so no other test's organization changes.
 */
export function writeDriftSandboxData(dir: string): void {
  for (const sub of ['api', 'sandbox', 'artifacts']) cpSync(join(FIXTURES_DIR, sub), join(dir, sub), { recursive: true });
  const worldPath = join(dir, 'sandbox', 'world.json');
  const world = JSON.parse(readFileSync(worldPath, 'utf8'));
  world.databases.push({
    id: DRIFT.databaseId,
    organizationId: 'org_acme',
    name: 'inventory',
    provider: 'rds',
    scheduleCron: '0 2 * * *',
    scheduleTimezone: 'UTC',
    restoreDrillTimezone: 'UTC',
    retentionPolicyDays: 30,
    dataResidency: 'eu',
    state: 'active',
    lastSuccessfulBackupAt: '2026-11-19T02:00:40Z',
    createdAt: '2026-06-01T08:00:00Z',
  });
  const backup = (id: string, day: string) => ({
    id,
    organizationId: 'org_acme',
    protectedDatabaseId: DRIFT.databaseId,
    destinationId: 'dst_eu_s3',
    state: 'completed',
    trigger: 'scheduled',
    attempt: 0,
    enqueuedAt: `${day}T02:00:00Z`,
    claimedAt: `${day}T02:00:01Z`,
    startedAt: `${day}T02:00:02Z`,
    completedAt: `${day}T02:00:40Z`,
    artifact: {
      artifactKey: `org_acme/${DRIFT.databaseId}/${id}/dump.pgcustom`,
      manifestObjectKey: `org_acme/${DRIFT.databaseId}/${id}/manifest.json`,
      sizeBytes: 0,
      checksumSha256: '0'.repeat(64),
      recordedAt: `${day}T02:00:41Z`,
    },
  });
  world.backupJobs.push(backup(DRIFT.wholeBackup, '2026-11-18'), backup(DRIFT.shrunkBackup, '2026-11-19'));
  world.artifactFiles.backupJobs = { ...world.artifactFiles.backupJobs, [DRIFT.wholeBackup]: 'acme-orders', [DRIFT.shrunkBackup]: 'orders-shrunk' };
  writeFileSync(worldPath, `${JSON.stringify(world, null, 2)}\n`);
  const settingsPath = join(dir, 'sandbox', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsPath, 'utf8'));
  settings.artifacts.files['orders-shrunk'] = { file: 'artifacts/orders-shrunk.pgdump', meta: 'artifacts/orders-shrunk.json' };
  writeFileSync(settingsPath, `${JSON.stringify(settings, null, 2)}\n`);
}
