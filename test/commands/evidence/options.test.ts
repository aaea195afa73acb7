import { describe, it } from 'vitest';
import { expectOptions, expectUsage, idRefusals, pagingRefusals, pagingRows, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

describe('evidence list options()', () => {
  const page = { limit: undefined, cursor: undefined, all: false, headers: true };
  const ok: OkRow[] = [
    ...pagingRows(['evidence', 'list'], { databaseId: undefined }),
    ['--database', ['evidence', 'list', '--database', 'db_orders'], { ...page, databaseId: 'db_orders' }],
    ['--database trimmed', ['evidence', 'list', '--database', ' db_orders '], { ...page, databaseId: 'db_orders' }],
    [
      '--database with the paging flags',
      ['evidence', 'list', '--database', 'db_orders', '--limit', '3', '--cursor', 'c_2', '--all'],
      { limit: 3, cursor: 'c_2', all: true, headers: true, databaseId: 'db_orders' },
    ],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!, ok[9]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...pagingRefusals(['evidence', 'list']),
    ['--database ""', ['evidence', 'list', '--database', ''], /^Invalid --database "": it must not be empty\.$/],
    ['--database of spaces', ['evidence', 'list', '--database', ' '], /^Invalid --database " ": it must not be empty\.$/],
    ['--database .', ['evidence', 'list', '--database', '.'], /^Invalid --database "\.": "\." and "\.\." cannot name a resource\.$/],
    ['--database ..', ['evidence', 'list', '--database', '..'], /^Invalid --database "\.\.": "\." and "\.\." cannot name a resource\.$/],
    ['--database without a value (commander)', ['evidence', 'list', '--database'], /option '--database <databaseId>' argument missing/],
    ['the database as an argument (commander)', ['evidence', 'list', 'db_orders'], /too many arguments for 'list'. Expected 0 arguments but got 1/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('evidence get options()', () => {
  const ok: OkRow[] = [
    ['a backup job id', ['evidence', 'get', 'bj_0007'], { backupJobId: 'bj_0007' }],
    ['the id trimmed', ['evidence', 'get', ' bj_0007 '], { backupJobId: 'bj_0007' }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...idRefusals(['evidence', 'get'], 'backup job id'),
    ['no id (commander)', ['evidence', 'get'], /^missing required argument 'backupJobId'$/],
    ['two ids (commander)', ['evidence', 'get', 'bj_0007', 'bj_0008'], /too many arguments for 'get'. Expected 1 argument but got 2/],
    ['--database, which only list has (commander)', ['evidence', 'get', 'bj_0007', '--database', 'db_orders'], /unknown option '--database'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});
