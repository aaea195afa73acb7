import type { ApiClient } from './client.js';
import { listDatabases } from './operations/databases.js';
import { holdPages } from './paginate.js';

/** Every database of the organization: all pages of listDatabases, under the bounds of --all (cli-contract 6). */
export async function allDatabases(api: ApiClient): Promise<Array<{ id: string; name: string }>> {
  const page = async (cursor: string | undefined) => {
    const r = await api.send(listDatabases({ cursor }));
    return { body: r.data as Record<string, unknown>, requestId: r.requestId };
  };
  const held = await holdPages({ first: await page(undefined), itemsKey: 'databases', startCursor: undefined, fetchPage: page });
  return held.databases as Array<{ id: string; name: string }>;
}
