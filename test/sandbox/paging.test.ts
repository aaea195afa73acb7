import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import * as operations from '../../src/api/operations.js';
import { holdPages } from '../../src/api/paginate.js';
import { api, clientFor, raw, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

let sb: TestSandbox;
let client: ApiClient;
beforeAll(async () => {
  sb = await startTestSandbox();
  client = clientFor(sb, 'full');
  // Two more completed backups of db_orders, so its evidence spans pages too.
  for (const key of ['paging-1', 'paging-2']) {
    const { data } = await client.send(operations.triggerBackup('db_orders', key));
    for (let i = 0; i < 4; i++) await client.send(operations.getBackup(data.backupJobId));
  }
});
afterAll(async () => {
  await client.close();
  await sb.stop();
});

/** Follows nextCursor by hand, checking every page against its limit. */
async function walk(path: string, itemsKey: string, limit?: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null | undefined;
  let pages = 0;
  do {
    const params = new URLSearchParams();
    if (limit !== undefined) params.set('limit', String(limit));
    if (cursor) params.set('cursor', cursor);
    const qs = params.size ? `${path.includes('?') ? '&' : '?'}${params}` : '';
    const res = await raw(sb, 'GET', api(`${path}${qs}`));
    expect(res.status, res.text).toBe(200);
    const items = res.json[itemsKey] as { id?: string; backupJobId?: string }[];
    if (limit !== undefined) expect(items.length).toBeLessThanOrEqual(limit);
    ids.push(...items.map((i) => i.id ?? i.backupJobId!));
    cursor = res.json.nextCursor;
    expect('nextCursor' in res.json).toBe(true);
    pages++;
    expect(pages).toBeLessThan(50);
  } while (cursor);
  return { ids, pages };
}

describe('keyset pages with nextCursor', () => {
  it('databases: a default page of 2, so paging shows', async () => {
    expect(await walk('/databases', 'databases')).toEqual({ ids: ['db_orders', 'db_billing', 'db_analytics'], pages: 2 });
  });

  it.each([
    ['/databases', 'databases', ['db_orders', 'db_billing', 'db_analytics']],
    ['/destinations', 'destinations', ['dst_eu_s3', 'dst_b2']],
    ['/databases/db_orders/backups', 'backupJobs', ['bj_0011', 'bj_0010', 'bj_0009', 'bj_0008', 'bj_0007', 'bj_0006']],
    ['/evidence', 'evidence', ['bj_0011', 'bj_0010', 'bj_0007', 'bj_0005']],
    ['/evidence?databaseId=db_orders', 'evidence', ['bj_0011', 'bj_0010', 'bj_0007']],
  ])('%s with limit=1 walks every item once, in order', async (path, key, expected) => {
    const one = await walk(path, key, 1);
    expect(one.ids).toEqual(expected);
    expect(one.pages).toBe(expected.length);
    const all = await walk(path, key, 100);
    expect(all).toEqual({ ids: expected, pages: 1 });
  });

  it('the last page carries nextCursor null; an exact fit carries none further', async () => {
    const res = await raw(sb, 'GET', api('/destinations?limit=2'));
    expect(res.json.nextCursor).toBeNull();
  });

  it("svc's --all walk (holdPages) merges the pages into one body without a cursor", async () => {
    const page = async (cursor?: string) => {
      const r = await client.send(operations.listDatabases({ cursor }));
      return { body: r.data as Record<string, unknown>, requestId: r.requestId };
    };
    const data = await holdPages({ first: await page(), itemsKey: 'databases', startCursor: undefined, fetchPage: page });
    expect((data.databases as Array<{ id: string }>).map((d) => d.id)).toEqual(['db_orders', 'db_billing', 'db_analytics']);
    expect('nextCursor' in data).toBe(false);
  });

  it('is a high-watermark keyset, newest first: a job created during a walk is above its cursor, and first in the next walk', async () => {
    const first = await raw(sb, 'GET', api('/databases/db_orders/backups?limit=5'));
    const { data } = await client.send(operations.triggerBackup('db_orders', 'paging-3'));
    const rest = await raw(sb, 'GET', api(`/databases/db_orders/backups?limit=5&cursor=${encodeURIComponent(first.json.nextCursor)}`));
    expect(rest.json.backupJobs.map((b: { id: string }) => b.id)).toEqual(['bj_0006']);
    const again = await raw(sb, 'GET', api('/databases/db_orders/backups?limit=1'));
    expect(again.json.backupJobs.map((b: { id: string }) => b.id)).toEqual([data.backupJobId]);
  });

  it('cursors stay opaque', async () => {
    const res = await raw(sb, 'GET', api('/databases?limit=1'));
    expect(res.json.nextCursor).not.toContain('db_');
  });
});
