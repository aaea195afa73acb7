import type { ApiClient } from '../api/client.js';
import { allDatabases } from '../api/all-databases.js';
import { getDatabase } from '../api/operations/databases.js';
import { ApiError } from '../errors.js';
import { mapPool } from '../pool.js';
import type { DrillOptions } from './run-drill.js';
import { shardOf } from './shard.js';

/** Databases read at once for their names. */
const READS = 8;

/** The databases to drill (cli-contract 9, step 1): the ids given, or every database (all pages, bounded); then --shard. */
export async function databasesOf(api: ApiClient, opts: Pick<DrillOptions, 'databases' | 'shard'>): Promise<Array<{ id: string; name: string | null }>> {
  if (opts.databases === 'all') {
    const all = await allDatabases(api);
    // A service that lists a database twice (a page boundary that moved) gets it drilled once:
    // twice would create two restore jobs and overwrite its receipt.
    const unique = [...new Map(all.map((d) => [d.id, d] as const)).values()];
    return shardOf(unique, opts.shard).map((d) => ({ id: d.id, name: d.name }));
  }
  const mine = shardOf(
    opts.databases.map((id) => ({ id })),
    opts.shard,
  );
  // A name where the service has the database; an unknown id fails its own drill at backup_selected.
  return mapPool(mine, READS, async ({ id }) => {
    try {
      return { id, name: (await api.send(getDatabase(id))).data.database.name };
    } catch (err) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 403)) return { id, name: null };
      throw err;
    }
  });
}
