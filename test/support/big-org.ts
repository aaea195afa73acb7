/**
 * A sandbox data set with one big organization, for tests of drills at scale (`svc restore drill --all`,
 * `--shard i/n`): a copy of fixtures/ (api/, sandbox/, artifacts/) whose organization acme holds
 * `databases` protected databases in all. fixtures/api's three stay as they are (db_orders and db_billing
 * with a completed backup, db_analytics with none); the others are generated, each with one or two
 * backups: most with a completed one that serves the acme-orders artifact, every `withoutCompletedEvery`-th
 * with a failed one only. Load it with `startSandbox({ dataDir })` or `svc sandbox --data <dir>`; call it
 * with the `drill` token, whose budget (fixtures/sandbox/tokens.json) covers a drill of every database.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from './fixtures.js';

export interface BigOrgOptions {
  /** Databases of organization acme in all, fixtures/api's three included (at least 3). */
  databases: number;
  /** listDatabases' default page size (settings.json pageSize.perList.databases, 1..100). Default 100. */
  pageSize?: number;
  /** Every n-th generated database has no completed backup, only a failed one. Default 50. */
  withoutCompletedEvery?: number;
  /**
   * A long history instead of one or two jobs: each generated database (but those without a completed
   * one) gets this many scheduled jobs at a 6-hour cadence, the newest enqueued 1 h before the epoch,
   * each taking 20 min (every 7th database's take 5 h and end 1 h before the epoch); every 9th job,
   * counting back from the newest (the 9th, 18th, ...), failed.
   */
  jobsPerDatabase?: number;
}

export interface BigOrg {
  dir: string;
  organizationId: 'org_acme';
  /** The token to call it with (fixtures/sandbox/tokens.json): databases:read, restores:*, 100,000 requests per 60 s. */
  tokenName: 'drill';
  /** Every database of the organization, sorted by id (the order `--shard` counts in). */
  databaseIds: string[];
  /** Each database's newest completed backup (greatest completedAt), or null where it has none. */
  newestCompleted: Map<string, string | null>;
}

/** fixtures/api's databases of acme and their newest completed backups, as fixtures/ holds them. */
export const FIXTURE_NEWEST_COMPLETED: ReadonlyMap<string, string | null> = new Map([
  ['db_orders', 'bj_0007'],
  ['db_billing', 'bj_0005'],
  ['db_analytics', null],
]);

const ORG = 'org_acme';
const DESTINATION = 'dst_eu_s3';
const PROVIDERS = ['neon', 'rds', 'aurora', 'supabase'] as const;
/** Generated times lie before the fixtures' "now" (FIXTURE_EPOCH), so recentTimestamps keeps them in the past. */
const EPOCH_MS = Date.parse('2026-11-21T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const HOUR = 3_600_000;
const MINUTE = 60_000;

interface Run {
  enqueued: number;
  /** Until completion (or failure): the job is claimed 2 s and started 3 s after it is enqueued. */
  takes: number;
  fails?: boolean;
}

/**
 * The backups of the k-th generated database, oldest enqueued first. Some complete in the other order
 * than they were enqueued, so the newest completed backup is not always the last one listed.
 */
function runsOf(k: number, withoutCompletedEvery: number, history: number | undefined): Run[] {
  const at = (hoursAgo: number) => EPOCH_MS - hoursAgo * HOUR + (k % 3600) * 1000;
  if (k % withoutCompletedEvery === 0) return [{ enqueued: at(3), takes: 40_000, fails: true }];
  if (history !== undefined) {
    // Every 7th database's dumps take 5 h: its newest started 6 h and completed 1 h before the epoch.
    const [first, takes] = k % 7 === 0 ? [6, 5 * HOUR] : [1, 20 * MINUTE];
    return Array.from({ length: history }, (_, i) => {
      const back = history - 1 - i;
      return { enqueued: at(first + 6 * back), takes, fails: back % 9 === 8 };
    });
  }
  if (k % 7 === 0)
    return [
      { enqueued: at(20), takes: 5 * HOUR },
      { enqueued: at(18), takes: 10 * MINUTE },
    ];
  if (k % 5 === 0)
    return [
      { enqueued: at(26), takes: 2 * MINUTE },
      { enqueued: at(2), takes: 30_000, fails: true },
    ];
  if (k % 3 === 0)
    return [
      { enqueued: at(30), takes: 2 * MINUTE },
      { enqueued: at(6), takes: 2 * MINUTE },
    ];
  return [{ enqueued: at(6 + (k % 12)), takes: 90_000 }];
}

/** Writes the data set into `dir` (created if missing) and says what it holds. */
export function writeBigOrgData(dir: string, opts: BigOrgOptions): BigOrg {
  const generated = opts.databases - FIXTURE_NEWEST_COMPLETED.size;
  if (!Number.isInteger(generated) || generated < 0) throw new Error(`databases must be an integer >= ${FIXTURE_NEWEST_COMPLETED.size}`);
  const withoutCompletedEvery = opts.withoutCompletedEvery ?? 50;
  mkdirSync(dir, { recursive: true });
  for (const sub of ['api', 'sandbox', 'artifacts']) cpSync(join(FIXTURES_DIR, sub), join(dir, sub), { recursive: true });

  const settingsPath = join(dir, 'sandbox', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsPath, 'utf8'));
  settings.pageSize.perList = { ...settings.pageSize.perList, databases: opts.pageSize ?? 100 };
  writeFileSync(settingsPath, `${JSON.stringify(settings, null, 2)}\n`);

  const acme = JSON.parse(readFileSync(join(FIXTURES_DIR, 'artifacts', 'acme-orders.json'), 'utf8')) as { sizeBytes: number; sha256: string };
  const worldPath = join(dir, 'sandbox', 'world.json');
  const world = JSON.parse(readFileSync(worldPath, 'utf8'));
  const newestCompleted = new Map(FIXTURE_NEWEST_COMPLETED);
  const width = Math.max(4, String(generated).length);
  let backupNumber = 100_000;

  for (let k = 1; k <= generated; k++) {
    const databaseId = `db_bulk_${String(k).padStart(width, '0')}`;
    let newest: { id: string; at: number } | undefined;
    for (const run of runsOf(k, withoutCompletedEvery, opts.jobsPerDatabase)) {
      const id = `bj_${++backupNumber}`;
      const endedAt = iso(run.enqueued + run.takes);
      const prefix = `${ORG}/${databaseId}/${id}`;
      world.backupJobs.push({
        id,
        organizationId: ORG,
        protectedDatabaseId: databaseId,
        destinationId: DESTINATION,
        state: run.fails ? 'failed_terminal' : 'completed',
        trigger: 'scheduled',
        attempt: 0,
        enqueuedAt: iso(run.enqueued),
        claimedAt: iso(run.enqueued + 2000),
        startedAt: iso(run.enqueued + 3000),
        ...(run.fails
          ? { errorKind: 'source_unreachable', errorMessage: 'The source database refused the connection.' }
          : {
              completedAt: endedAt,
              artifact: {
                artifactKey: `${prefix}/dump.pgcustom`,
                manifestObjectKey: `${prefix}/manifest.json`,
                sizeBytes: acme.sizeBytes,
                checksumSha256: acme.sha256,
                recordedAt: endedAt,
              },
            }),
      });
      if (!run.fails && (!newest || run.enqueued + run.takes > newest.at)) newest = { id, at: run.enqueued + run.takes };
    }
    world.databases.push({
      id: databaseId,
      organizationId: ORG,
      name: `bulk-${k}`,
      provider: PROVIDERS[k % PROVIDERS.length],
      scheduleCron: '0 */6 * * *',
      scheduleTimezone: 'UTC',
      restoreDrillTimezone: 'UTC',
      retentionPolicyDays: 30,
      dataResidency: 'eu',
      state: newest ? 'active' : 'degraded',
      ...(newest ? { lastSuccessfulBackupAt: iso(newest.at) } : {}),
      createdAt: iso(Date.parse('2026-06-01T00:00:00Z') + k * MINUTE),
    });
    newestCompleted.set(databaseId, newest?.id ?? null);
  }
  writeFileSync(worldPath, `${JSON.stringify(world, null, 2)}\n`);

  return { dir, organizationId: ORG, tokenName: 'drill', databaseIds: [...newestCompleted.keys()].sort(), newestCompleted };
}
