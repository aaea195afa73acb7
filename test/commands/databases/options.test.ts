import { describe, it } from 'vitest';
import { expectOptions, expectUsage, idRefusals, pagingRefusals, pagingRows, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

describe('databases list options()', () => {
  const ok = pagingRows(['databases', 'list'], {});
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!, ok[6]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...pagingRefusals(['databases', 'list']),
    ['an argument (commander)', ['databases', 'list', 'db_orders'], /too many arguments for 'list'. Expected 0 arguments but got 1/],
    ['an unknown option (commander)', ['databases', 'list', '--page', '2'], /unknown option '--page'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('databases get options()', () => {
  const ok: OkRow[] = [
    ['an id', ['databases', 'get', 'db_orders'], { databaseId: 'db_orders' }],
    ['an id with spaces around is trimmed', ['databases', 'get', ' db_orders '], { databaseId: 'db_orders' }],
    ['an id with dots inside', ['databases', 'get', 'db_orders.v2'], { databaseId: 'db_orders.v2' }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...idRefusals(['databases', 'get'], 'database id'),
    ['no id (commander)', ['databases', 'get'], /^missing required argument 'databaseId'$/],
    ['two ids (commander)', ['databases', 'get', 'db_orders', 'db_orders_2'], /too many arguments for 'get'. Expected 1 argument but got 2/],
    ['a paging flag (commander)', ['databases', 'get', 'db_orders', '--limit', '5'], /unknown option '--limit'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});
