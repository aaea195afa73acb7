import { describe, it } from 'vitest';
import { expectOptions, expectUsage, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

describe('profile options()', () => {
  const ok: OkRow[] = [['no options', ['profile'], {}]];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals(ok))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ['an argument (commander)', ['profile', 'me'], /too many arguments for 'profile'. Expected 0 arguments but got 1/],
    ['an unknown option (commander)', ['profile', '--scopes'], /unknown option '--scopes'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});
