import { describe, it } from 'vitest';
import { expectOptions, expectUsage, idRefusals, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

describe('recovery summary options()', () => {
  const ok: OkRow[] = [
    ['a database id', ['recovery', 'summary', 'db_orders'], { databaseId: 'db_orders' }],
    ['the id trimmed', ['recovery', 'summary', ' db_orders '], { databaseId: 'db_orders' }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...idRefusals(['recovery', 'summary'], 'database id'),
    ['no id (commander)', ['recovery', 'summary'], /^missing required argument 'databaseId'$/],
    ['two ids (commander)', ['recovery', 'summary', 'db_orders', 'db_billing'], /too many arguments for 'summary'. Expected 1 argument but got 2/],
    [
      '--incident-time, which only candidate has (commander)',
      ['recovery', 'summary', 'db_orders', '--incident-time', '2026-11-20T14:30:00Z'],
      /unknown option '--incident-time'/,
    ],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('recovery candidate options()', () => {
  const at = (incidentTime: string, databaseId = 'db_orders') => ({ databaseId, incidentTime });
  const ok: OkRow[] = [
    ['UTC (Z)', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-20T14:30:00Z'], at('2026-11-20T14:30:00Z')],
    ['an offset, kept as given', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-20T14:30:00+02:00'], at('2026-11-20T14:30:00+02:00')],
    ['a negative offset', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-20T09:30:00-05:00'], at('2026-11-20T09:30:00-05:00')],
    ['fractional seconds', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-20T14:30:00.123Z'], at('2026-11-20T14:30:00.123Z')],
    ['the option before the id', ['recovery', 'candidate', '--incident-time', '2026-11-20T14:30:00Z', 'db_orders'], at('2026-11-20T14:30:00Z')],
    ['the id trimmed', ['recovery', 'candidate', ' db_orders ', '--incident-time', '2026-11-20T14:30:00Z'], at('2026-11-20T14:30:00Z')],
    ['a space for the T, with a zone', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-20 14:30:00Z'], at('2026-11-20T14:30:00Z')],
    [
      'minutes without seconds, with an offset',
      ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-20 14:30+02:00'],
      at('2026-11-20T14:30:00+02:00'),
    ],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const time = (v: string) =>
    new RegExp(
      `^Invalid --incident-time "${v.replace(/[.+]/g, '\\$&')}": use ISO 8601, e\\.g\\. 2026-11-20T14:30:00Z, or a date and time like "2026-11-20 15:30" read in this machine's time zone\\.$`,
    );
  const refused: UsageRow[] = [
    ...idRefusals(['recovery', 'candidate'], 'database id', ['--incident-time', '2026-11-20T14:30:00Z']),
    ['no --incident-time (commander)', ['recovery', 'candidate', 'db_orders'], /^required option '--incident-time <iso8601>' not specified$/],
    ['no database id (commander)', ['recovery', 'candidate', '--incident-time', '2026-11-20T14:30:00Z'], /^missing required argument 'databaseId'$/],
    [
      '--incident-time without a value (commander)',
      ['recovery', 'candidate', 'db_orders', '--incident-time'],
      /option '--incident-time <iso8601>' argument missing/,
    ],
    ['a date alone', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-20'], time('2026-11-20')],
    ['a date and time in another order', ['recovery', 'candidate', 'db_orders', '--incident-time', '11/20/2026 14:30'], time('11/20/2026 14:30')],
    ['an impossible day, no zone', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-02-30 14:30'], time('2026-02-30 14:30')],
    ['words', ['recovery', 'candidate', 'db_orders', '--incident-time', 'yesterday'], time('yesterday')],
    ['a Unix timestamp', ['recovery', 'candidate', 'db_orders', '--incident-time', '1795185000'], time('1795185000')],
    ['an impossible month', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-13-20T14:30:00Z'], time('2026-13-20T14:30:00Z')],
    ['an empty time', ['recovery', 'candidate', 'db_orders', '--incident-time', ''], time('')],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('recovery proof options()', () => {
  const ok: OkRow[] = [
    ['a window id', ['recovery', 'proof', 'rw_0003'], { windowId: 'rw_0003' }],
    ['the id trimmed', ['recovery', 'proof', ' rw_0003 '], { windowId: 'rw_0003' }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...idRefusals(['recovery', 'proof'], 'window id'),
    ['no id (commander)', ['recovery', 'proof'], /^missing required argument 'windowId'$/],
    ['two ids (commander)', ['recovery', 'proof', 'rw_0003', 'rw_0004'], /too many arguments for 'proof'. Expected 1 argument but got 2/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});
