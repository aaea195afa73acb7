import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import * as operations from '../../src/api/operations.js';
import { holdPages } from '../../src/api/paginate.js';
import { writeBigOrgData, type BigOrg } from '../support/big-org.js';
import { api, clientFor, raw, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const DATABASES = 1000;
let dir: string;
let org: BigOrg;
let sb: TestSandbox;
let client: ApiClient;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'svc-big-org-'));
  org = writeBigOrgData(dir, { databases: DATABASES });
  sb = await startTestSandbox({ dataDir: dir });
  client = clientFor(sb, org.tokenName);
});
afterAll(async () => {
  await client?.close();
  await sb?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `fn` over `items`, `width` at a time, like a drill with --parallel. */
async function eachLimited<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

describe('writeBigOrgData: 1,000 databases in organization acme', () => {
  it('loads, and listDatabases needs several default pages that list every database exactly once', async () => {
    expect(org.databaseIds).toHaveLength(DATABASES);
    const ids: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const res = await raw(sb, 'GET', api(`/databases${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`), { token: org.tokenName });
      expect(res.status, res.text).toBe(200);
      expect(res.json.databases.length).toBeLessThanOrEqual(100);
      ids.push(...res.json.databases.map((d: { id: string }) => d.id));
      cursor = res.json.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(10);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(org.databaseIds);
  });

  it("svc's --all walk (holdPages) merges the same 1,000 databases", async () => {
    const page = async (cursor?: string) => {
      const r = await client.send(operations.listDatabases({ cursor }));
      return { body: r.data as Record<string, unknown>, requestId: r.requestId };
    };
    const data = await holdPages({ first: await page(), itemsKey: 'databases', startCursor: undefined, fetchPage: page });
    expect((data.databases as { id: string }[]).map((d) => d.id).sort()).toEqual(org.databaseIds);
  });

  it('each database has the newest completed backup the generator says, by greatest completedAt read with getBackup', async () => {
    const found = new Map<string, string | null>();
    const digests = new Set<string>();
    let newestNotLastListed = 0;
    await eachLimited(org.databaseIds, 8, async (databaseId) => {
      const { data } = await client.send(operations.listDatabaseBackups(databaseId, {}));
      expect(data.nextCursor ?? null).toBeNull();
      let newest: { id: string; at: number } | undefined;
      for (const { id } of data.backupJobs) {
        const job = (await client.send(operations.getBackup(id))).data;
        if (job.state !== 'completed' || !job.artifact) continue;
        expect(Date.parse(job.completedAt!)).toBeGreaterThanOrEqual(Date.parse(job.enqueuedAt));
        digests.add(job.artifact.checksumSha256);
        if (!newest || Date.parse(job.completedAt!) > newest.at) newest = { id, at: Date.parse(job.completedAt!) };
      }
      found.set(databaseId, newest?.id ?? null);
      if (newest && newest.id !== data.backupJobs.at(-1)!.id) newestNotLastListed++;
    });
    expect(found).toEqual(org.newestCompleted);
    const without = [...found].filter(([, id]) => id === null).map(([db]) => db);
    expect(without).toContain('db_analytics');
    expect(without.length).toBeGreaterThan(5);
    expect(without.length).toBeLessThan(DATABASES / 20);
    // Many databases list a backup after their newest completed one: the list order is not the selection rule.
    expect(newestNotLastListed).toBeGreaterThan(100);
    expect(digests).toEqual(new Set([sb.artifacts['acme-orders']!.sha256, sb.artifacts.billing!.sha256]));
    // ~2,400 calls on the drill token's budget: none was rate limited, and the sandbox answered every one within the client's schema.
    expect(sb.internalErrors).toEqual([]);
  });
});
