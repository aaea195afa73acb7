import { describe, it } from 'vitest';
import { expectOptions, expectUsage, idRefusals, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

describe('tools list options()', () => {
  const ok: OkRow[] = [['no options', ['tools', 'list'], {}]];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals(ok))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ['an argument (commander)', ['tools', 'list', 'svc.backup.trigger'], /too many arguments for 'list'. Expected 0 arguments but got 1/],
    ['a paging flag: the catalog is not paged (commander)', ['tools', 'list', '--all'], /unknown option '--all'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('tools get options()', () => {
  const ok: OkRow[] = [
    ['a dotted tool name', ['tools', 'get', 'svc.backup.trigger'], { name: 'svc.backup.trigger' }],
    ['the name trimmed', ['tools', 'get', ' svc.backup.trigger '], { name: 'svc.backup.trigger' }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...idRefusals(['tools', 'get'], 'tool name'),
    ['no name (commander)', ['tools', 'get'], /^missing required argument 'name'$/],
    ['two names (commander)', ['tools', 'get', 'svc.backup.trigger', 'svc.restore.create'], /too many arguments for 'get'. Expected 1 argument but got 2/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});
