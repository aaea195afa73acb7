/**
 * --shard i/n (cli-contract 9): what a CI matrix or an Indexed Job hands each runner. The parse is
 * exit 2 for anything but `1 <= i <= n <= 1000`; the split is by sorted id, k-th to shard (k mod n) + 1.
 */
import { describe, expect, it } from 'vitest';
import { parseShard, shardOf, MAX_SHARDS } from '../../src/drill/shard.js';
import { ExitCode } from '../../src/exit-codes.js';
import { isCliError } from '../../src/errors.js';

function usageError(fn: () => unknown): { message: string; hint: string | undefined } {
  try {
    fn();
  } catch (err) {
    expect(isCliError(err), String(err)).toBe(true);
    if (!isCliError(err)) throw err;
    expect(err.exitCode).toBe(ExitCode.usage);
    return { message: err.message, hint: err.details.hint };
  }
  throw new Error('expected a usage error');
}

describe('parseShard', () => {
  it.each([
    ['1/1', 1, 1],
    ['2/8', 2, 8],
    ['8/8', 8, 8],
    ['1/1000', 1, 1000],
    ['1000/1000', 1000, 1000],
    [' 3/4 ', 3, 4],
    ['03/04', 3, 4],
  ])('%j is shard %i of %i', (raw, index, count) => {
    expect(parseShard(raw)).toEqual({ index, count });
  });

  it.each([
    '0/4', // i starts at 1
    '5/4', // i beyond n
    '1/0',
    '0/0',
    '1/1001', // n beyond 1000
    '1001/1001',
    '10000/10000',
    '-1/4',
    '+1/4',
    '1.5/4',
    '1/4.0',
    '1/',
    '/4',
    '1',
    '1-4',
    '1:4',
    '1 / 4',
    '1/4/2',
    'a/b',
    '１/4', // a full-width digit
    '',
    ' ',
  ])('%j is refused (exit 2) naming the value and the rule', (raw) => {
    const { message, hint } = usageError(() => parseShard(raw));
    expect(message).toBe(`Invalid --shard "${raw}": use i/n with 1 <= i <= n <= ${MAX_SHARDS}, e.g. --shard 2/8.`);
    expect(hint).toContain('--shard $((JOB_COMPLETION_INDEX + 1))/$N');
  });

  it('allows up to 1000 shards, as the contract says', () => {
    expect(MAX_SHARDS).toBe(1000);
  });
});

describe('shardOf', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, k) => ({ id: `db_${String((k * 7919) % n).padStart(4, '0')}` }));

  it('without --shard: every database, sorted by id', () => {
    const items = [{ id: 'db_c' }, { id: 'db_a' }, { id: 'db_b' }];
    expect(shardOf(items, undefined).map((d) => d.id)).toEqual(['db_a', 'db_b', 'db_c']);
    // The input is not reordered in place.
    expect(items.map((d) => d.id)).toEqual(['db_c', 'db_a', 'db_b']);
  });

  it('the k-th id in sorted order (0-based) belongs to shard (k mod n) + 1', () => {
    const items = [{ id: 'db_e' }, { id: 'db_a' }, { id: 'db_d' }, { id: 'db_b' }, { id: 'db_c' }];
    expect(shardOf(items, { index: 1, count: 2 }).map((d) => d.id)).toEqual(['db_a', 'db_c', 'db_e']);
    expect(shardOf(items, { index: 2, count: 2 }).map((d) => d.id)).toEqual(['db_b', 'db_d']);
    expect(shardOf(items, { index: 3, count: 3 }).map((d) => d.id)).toEqual(['db_c']);
  });

  it('sorts by code unit, not by locale: every runner splits the same way whatever its LANG', () => {
    const items = [{ id: 'db_a' }, { id: 'db_B' }, { id: 'db_ä' }, { id: 'db_Z' }, { id: 'db_10' }, { id: 'db_9' }];
    expect(shardOf(items, undefined).map((d) => d.id)).toEqual(['db_10', 'db_9', 'db_B', 'db_Z', 'db_a', 'db_ä']);
  });

  it.each([1, 2, 3, 7, 64, 1000])('n = %i: the shards partition the databases (each in exactly one), whatever order they arrive in', (n) => {
    const items = ids(997);
    const reversed = [...items].reverse();
    const seen = new Map<string, number>();
    for (let i = 1; i <= n; i++) {
      const share = shardOf(items, { index: i, count: n });
      // The same share from the same ids listed in another order.
      expect(shardOf(reversed, { index: i, count: n })).toEqual(share);
      // Sizes differ by at most one.
      expect(share.length).toBeGreaterThanOrEqual(Math.floor(items.length / n));
      expect(share.length).toBeLessThanOrEqual(Math.ceil(items.length / n));
      for (const { id } of share) {
        expect(seen.get(id), `${id} in shards ${seen.get(id)} and ${i}`).toBeUndefined();
        seen.set(id, i);
      }
    }
    expect([...seen.keys()].sort()).toEqual(items.map((d) => d.id).sort());
  });

  it('more shards than databases: the first shards get one each, the rest none', () => {
    const items = [{ id: 'db_b' }, { id: 'db_a' }];
    expect(shardOf(items, { index: 1, count: 5 })).toEqual([{ id: 'db_a' }]);
    expect(shardOf(items, { index: 2, count: 5 })).toEqual([{ id: 'db_b' }]);
    expect(shardOf(items, { index: 5, count: 5 })).toEqual([]);
  });
});
