import { describe, it } from 'vitest';
import { expectOptions, expectUsage, idRefusals, pagingRefusals, pagingRows, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

describe('backups list options()', () => {
  const ok: OkRow[] = [
    ...pagingRows(['backups', 'list', 'db_orders'], { databaseId: 'db_orders' }),
    [
      'paging flags before the id',
      ['backups', 'list', '--limit', '3', 'db_orders'],
      { databaseId: 'db_orders', limit: 3, cursor: undefined, all: false, headers: true },
    ],
    ['the id trimmed', ['backups', 'list', ' db_orders '], { databaseId: 'db_orders', limit: undefined, cursor: undefined, all: false, headers: true }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!, ok[6]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...idRefusals(['backups', 'list'], 'database id'),
    ...pagingRefusals(['backups', 'list', 'db_orders']),
    ['no database id (commander)', ['backups', 'list'], /^missing required argument 'databaseId'$/],
    ['no database id, only paging flags (commander)', ['backups', 'list', '--all'], /^missing required argument 'databaseId'$/],
    ['two ids (commander)', ['backups', 'list', 'db_orders', 'db_billing'], /too many arguments for 'list'. Expected 1 argument but got 2/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('backups get options()', () => {
  const ok: OkRow[] = [
    ['an id', ['backups', 'get', 'bj_0007'], { backupJobId: 'bj_0007' }],
    ['an id with spaces around is trimmed', ['backups', 'get', '\tbj_0007 '], { backupJobId: 'bj_0007' }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...idRefusals(['backups', 'get'], 'backup job id'),
    ['no id (commander)', ['backups', 'get'], /^missing required argument 'backupJobId'$/],
    ['two ids (commander)', ['backups', 'get', 'bj_0007', 'bj_0008'], /too many arguments for 'get'. Expected 1 argument but got 2/],
    ['--wait, which only trigger has (commander)', ['backups', 'get', 'bj_0007', '--wait'], /unknown option '--wait'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('backups trigger options()', () => {
  const KEY_200 = `k${'x'.repeat(198)}z`;
  const trigger = (o: { idempotencyKey?: string; wait?: boolean; waitTimeoutMs?: number; databaseId?: string } = {}) => ({
    databaseId: 'db_orders',
    idempotencyKey: undefined,
    wait: false,
    waitTimeoutMs: 3_600_000,
    ...o,
  });
  const ok: OkRow[] = [
    ['defaults: a new key per run, no wait, an hour of wait timeout', ['backups', 'trigger', 'db_orders'], trigger()],
    ['the id trimmed', ['backups', 'trigger', ' db_orders '], trigger()],
    ['--wait', ['backups', 'trigger', 'db_orders', '--wait'], trigger({ wait: true })],
    ['--wait --wait-timeout 60', ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '60'], trigger({ wait: true, waitTimeoutMs: 60_000 })],
    [
      '--wait-timeout in fractions of a second',
      ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '1.5'],
      trigger({ wait: true, waitTimeoutMs: 1_500 }),
    ],
    [
      '--wait-timeout of 7 days, the longest',
      ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '604800'],
      trigger({ wait: true, waitTimeoutMs: 604_800_000 }),
    ],
    ['--idempotency-key', ['backups', 'trigger', 'db_orders', '--idempotency-key', 'nightly-2026-11-21'], trigger({ idempotencyKey: 'nightly-2026-11-21' })],
    ['--idempotency-key of one character', ['backups', 'trigger', 'db_orders', '--idempotency-key', 'k'], trigger({ idempotencyKey: 'k' })],
    [
      '--idempotency-key with inner spaces and punctuation',
      ['backups', 'trigger', 'db_orders', '--idempotency-key', 'run #7: a~b'],
      trigger({ idempotencyKey: 'run #7: a~b' }),
    ],
    [
      '--idempotency-key of 200 characters, the longest',
      ['backups', 'trigger', 'db_orders', '--idempotency-key', KEY_200],
      trigger({ idempotencyKey: KEY_200 }),
    ],
    [
      'every flag, before the id',
      ['backups', 'trigger', '--wait', '--idempotency-key', 'k-1', '--wait-timeout', '90', 'db_orders'],
      trigger({ idempotencyKey: 'k-1', wait: true, waitTimeoutMs: 90_000 }),
    ],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!, ok[10]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const key = /^Invalid --idempotency-key ".*": it must be 1 to 200 printable ASCII characters \(no leading or trailing space\)\.$/s;
  const seconds = (v: string) => new RegExp(`^Invalid --wait-timeout "${v}": a positive number of seconds, at most 604800 \\(7 days\\)\\.$`);
  const refused: UsageRow[] = [
    ...idRefusals(['backups', 'trigger'], 'database id'),
    ['no database id (commander)', ['backups', 'trigger', '--wait'], /^missing required argument 'databaseId'$/],
    ['--wait-timeout 0', ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '0'], seconds('0')],
    ['--wait-timeout -5', ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '-5'], seconds('-5')],
    ['--wait-timeout abc', ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', 'abc'], seconds('abc')],
    ['--wait-timeout ""', ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', ''], seconds('')],
    ['--wait-timeout of spaces', ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '  '], seconds('  ')],
    ['a bad --wait-timeout even without --wait', ['backups', 'trigger', 'db_orders', '--wait-timeout', '0'], seconds('0')],
    ['--wait-timeout over 7 days, the cap the message names', ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '604801'], seconds('604801')],
    ['--wait-timeout in hex', ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '0x10'], seconds('0x10')],
    ['--wait-timeout with an exponent', ['backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '1e3'], seconds('1e3')],
    ['--wait-timeout without a value (commander)', ['backups', 'trigger', 'db_orders', '--wait-timeout'], /option '--wait-timeout <seconds>' argument missing/],
    ['--idempotency-key ""', ['backups', 'trigger', 'db_orders', '--idempotency-key', ''], key],
    ['--idempotency-key of 201 characters', ['backups', 'trigger', 'db_orders', '--idempotency-key', `${KEY_200}z`], key],
    ['--idempotency-key with a leading space', ['backups', 'trigger', 'db_orders', '--idempotency-key', ' k-1'], key],
    ['--idempotency-key with a trailing space', ['backups', 'trigger', 'db_orders', '--idempotency-key', 'k-1 '], key],
    ['--idempotency-key of one space', ['backups', 'trigger', 'db_orders', '--idempotency-key', ' '], key],
    ['--idempotency-key with a tab', ['backups', 'trigger', 'db_orders', '--idempotency-key', 'k\t1'], key],
    ['--idempotency-key with a newline', ['backups', 'trigger', 'db_orders', '--idempotency-key', 'k\n1'], key],
    ['--idempotency-key with a control character', ['backups', 'trigger', 'db_orders', '--idempotency-key', 'k\u00011'], key],
    ['--idempotency-key with DEL', ['backups', 'trigger', 'db_orders', '--idempotency-key', 'k\u007f1'], key],
    ['--idempotency-key with a non-ASCII letter', ['backups', 'trigger', 'db_orders', '--idempotency-key', 'clé-1'], key],
    [
      '--idempotency-key without a value (commander)',
      ['backups', 'trigger', 'db_orders', '--idempotency-key'],
      /option '--idempotency-key <key>' argument missing/,
    ],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});
