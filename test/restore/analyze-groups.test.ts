import { expect, it } from 'vitest';
import { analyzeGroups } from '../../src/restore/load/inventory.js';

/** Tables largest first, dealt over the ANALYZE connections so that no connection gets all the big ones. */
it.each([
  [['a'], 4, [['a']]],
  [
    ['a', 'b', 'c', 'd'],
    2,
    [
      ['a', 'd'],
      ['b', 'c'],
    ],
  ],
  [
    ['a', 'b', 'c', 'd', 'e', 'f'],
    3,
    [
      ['a', 'f'],
      ['b', 'e'],
      ['c', 'd'],
    ],
  ],
  [['a', 'b', 'c'], 1, [['a', 'b', 'c']]],
  [['a', 'b'], 0, [['a', 'b']]],
])('%j over %i connections: %j', (tables, jobs, groups) => {
  expect(analyzeGroups(tables, jobs)).toEqual(groups);
});
