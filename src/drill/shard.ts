import { UsageError } from '../errors.js';

/** --shard i/n: this runner's share of the databases (cli-contract 9). */
export interface Shard {
  index: number;
  count: number;
}

export const MAX_SHARDS = 1000;

/** "2/8" → { index: 2, count: 8 }; anything else is exit 2, before any request. */
export function parseShard(raw: string): Shard {
  const m = /^(\d{1,4})\/(\d{1,4})$/.exec(raw.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || index < 1 || count < 1 || index > count || count > MAX_SHARDS) {
    throw new UsageError(
      `Invalid --shard "${raw}": use i/n with 1 <= i <= n <= ${MAX_SHARDS}, e.g. --shard 2/8.`,
      'In a CI matrix or a Kubernetes Indexed Job: --shard $((JOB_COMPLETION_INDEX + 1))/$N',
    );
  }
  return { index, count };
}

/**
 * The databases of one shard: sorted by id, the k-th (0-based) belongs to shard (k mod n) + 1. The
 * same ids always split the same way, and every id is in exactly one shard.
 */
export function shardOf<T extends { id: string }>(items: readonly T[], shard: Shard | undefined): T[] {
  const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return shard ? sorted.filter((_, k) => (k % shard.count) + 1 === shard.index) : sorted;
}
