/**
 * `svc restore drill --all --shard i/n` at the scale an organization splits over CI runners
 * (cli-contract 9, "Scale"): a sandbox of 1,000 databases (test/support/big-org.ts), dry runs only
 * (they plan each database of the shard and create nothing). The shards of each n partition the
 * organization: every database in exactly one, planned with its own newest completed backup, and the
 * same split again on a second run. About 25 s here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBigOrgData, type BigOrg } from '../support/big-org.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';

/** A dry run still looks for the scratch server's binaries and pg_restore (cli-contract 9, step 2). */
const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-scale.test.ts skipped: ${skip}`);

const DATABASES = 1000;

describe.skipIf(!!skip)('--all --dry-run --shard i/n over 1,000 databases', () => {
  const h = new DrillE2e();
  let org: BigOrg;
  const data = mkdtempSync(join(tmpdir(), 'svc-drill-bigorg-'));
  beforeAll(async () => {
    org = writeBigOrgData(data, { databases: DATABASES, pageSize: 100 });
    await h.start({ dataDir: org.dir });
  }, 120_000);
  afterAll(async () => {
    await h.stop();
    rmSync(data, { recursive: true, force: true });
  });

  /** One runner's share: database id -> the backup it would drill (null where none qualifies). */
  async function shard(spec: string): Promise<Map<string, string | null>> {
    const r = await h.drill(['--all', '--dry-run', '--json', '--shard', spec], { token: org.tokenName });
    const d = r.doc!;
    expect(d.shard).toBe(spec);
    expect(r.code).toBe(d.failed > 0 ? 13 : 0);
    expect(d.passed + d.failed).toBe(d.databases.length);
    for (const db of d.databases) expect(db.result).toBe(db.backupJobId ? 'planned' : 'failed');
    return new Map(d.databases.map((db) => [db.databaseId, db.backupJobId]));
  }

  async function partition(n: number): Promise<Array<Map<string, string | null>>> {
    const shares: Array<Map<string, string | null>> = [];
    for (let i = 1; i <= n; i++) shares.push(await shard(`${i}/${n}`));
    return shares;
  }

  function expectPartition(shares: Array<Map<string, string | null>>): void {
    const n = shares.length;
    const owner = new Map<string, number>();
    shares.forEach((share, s) => {
      for (const id of share.keys()) {
        expect(owner.get(id), `${id} is in shards ${owner.get(id)! + 1} and ${s + 1} of ${n}`).toBeUndefined();
        owner.set(id, s);
      }
      // Near-equal shares: the k-th database of the sorted organization goes to shard (k mod n) + 1.
      expect(share.size).toBe(Math.floor(DATABASES / n) + (s < DATABASES % n ? 1 : 0));
    });
    expect([...owner.keys()].sort()).toEqual(org.databaseIds);
    org.databaseIds.forEach((id, k) => expect(owner.get(id), id).toBe(k % n));
    // Each database is planned with its own newest completed backup, or fails where it has none.
    for (const share of shares) for (const [id, backup] of share) expect(backup, id).toBe(org.newestCompleted.get(id));
  }

  it('n = 1: one runner plans the whole organization, across all ten pages of listDatabases', async () => {
    const before = h.sb.requests.length;
    const [all] = await partition(1);
    expect(all!.size).toBe(DATABASES);
    expect([...all!.values()].filter((b) => b === null).length).toBe([...org.newestCompleted.values()].filter((b) => b === null).length);
    expectPartition([all!]);
    expect(h.sb.requests.slice(before).filter((e) => e.path === '/api/v1/databases')).toHaveLength(DATABASES / 100);
    expect(h.restoresCreated()).toBe(0);
  }, 60_000);

  it('n = 3 and n = 7: the shards partition the organization, and a second run splits it the same way', async () => {
    const three = await partition(3);
    expectPartition(three);
    const seven = await partition(7);
    expectPartition(seven);
    expect(await partition(3)).toEqual(three);
    expect(h.restoresCreated()).toBe(0);
  }, 120_000);

  it('n = 1000: shard i holds exactly the i-th database in sorted order (sampled at the edges and the middle)', async () => {
    for (const i of [1, 2, 500, 999, 1000]) {
      const share = await shard(`${i}/1000`);
      expect([...share.keys()], `shard ${i}/1000`).toEqual([org.databaseIds[i - 1]]);
    }
  }, 60_000);
});
