import { tmpdir, userInfo } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../support/verb-options.js';
import { expectOptions, expectUsage, idRefusals, withGlobals, type Env, type OkRow, type UsageRow } from '../options-table.js';

const DSN = 'postgresql://restore_user@db.internal:5433/orders_restored';
const TARGET = {
  host: 'db.internal',
  port: 5433,
  user: 'restore_user',
  database: 'orders_restored',
  password: undefined,
  params: { PGHOST: 'db.internal', PGPORT: '5433', PGUSER: 'restore_user' },
};
const ENV_DSN = 'postgresql://env_user:env-Secret-9@env.internal/orders_from_env';
const ENV_TARGET = {
  host: 'env.internal',
  port: 5432,
  user: 'env_user',
  database: 'orders_from_env',
  password: 'env-Secret-9',
  params: { PGHOST: 'env.internal', PGUSER: 'env_user' },
};
const PASSWORD = 'Pa55-w0rd-argv';
const TMP = resolve(tmpdir());

/** engineOptions() for DSN with nothing else given: a new database, default jobs, the OS temp dir. */
const engine = (o: Record<string, unknown> = {}) => ({
  target: TARGET,
  rawTarget: DSN,
  passwordInArgv: false,
  inPlace: undefined,
  confirm: false,
  jobs: undefined,
  workDir: TMP,
  keepArtifact: false,
  connections: 8,
  analyze: true,
  receiptPath: undefined,
  keepPartial: false,
  noTablespaces: false,
  databaseSettings: false,
  terminateConnections: false,
  dropPrevious: false,
  ...o,
});
const created = (o: Record<string, unknown> = {}) => engine({ rule: { rule: 'id', backupJobId: 'bj_0007' }, dryRun: false, idempotencyKey: undefined, ...o });

/**
 * The target rows `restore create` and `restore run` share: `argv` is the verb with whatever it
 * requires besides the target, `opts` builds the expected options from engine fields.
 */
function targetRows(argv: string[], opts: (o?: Record<string, unknown>) => unknown): OkRow[] {
  return [
    ['defaults: --target, a new database, default jobs, the OS temp dir', [...argv, '--target', DSN], opts()],
    [
      'SVC_TARGET_DSN when there is no --target (its password is not in argv)',
      argv,
      opts({ target: ENV_TARGET, rawTarget: ENV_DSN }),
      { SVC_TARGET_DSN: ENV_DSN },
    ],
    ['--target wins over SVC_TARGET_DSN', [...argv, '--target', DSN], opts(), { SVC_TARGET_DSN: ENV_DSN }],
    [
      'a password in --target sets passwordInArgv',
      [...argv, '--target', `postgresql://restore_user:${PASSWORD}@db.internal:5433/orders_restored`],
      opts({
        target: { ...TARGET, password: PASSWORD },
        rawTarget: `postgresql://restore_user:${PASSWORD}@db.internal:5433/orders_restored`,
        passwordInArgv: true,
      }),
    ],
    [
      'host, port and user from PGHOST, PGPORT and PGUSER when the URI has none',
      [...argv, '--target', 'postgresql:///orders_restored'],
      opts({
        target: { host: 'pg.env', port: 6543, user: 'pg_env_user', database: 'orders_restored', password: undefined, params: {} },
        rawTarget: 'postgresql:///orders_restored',
      }),
      { PGHOST: 'pg.env', PGPORT: '6543', PGUSER: 'pg_env_user' },
    ],
    [
      'libpq defaults: the default Unix socket (no host), 5432, the OS user',
      [...argv, '--target', 'postgresql:///orders_restored'],
      opts({
        target: { host: undefined, port: 5432, user: userInfo().username, database: 'orders_restored', password: undefined, params: {} },
        rawTarget: 'postgresql:///orders_restored',
      }),
    ],
    [
      'postgres:// with query parameters passed on as libpq variables',
      [...argv, '--target', 'postgres://app@db.internal/orders_restored?sslmode=verify-full&application_name=svc-restore'],
      opts({
        target: {
          host: 'db.internal',
          port: 5432,
          user: 'app',
          database: 'orders_restored',
          password: undefined,
          params: { PGUSER: 'app', PGHOST: 'db.internal', PGSSLMODE: 'verify-full', PGAPPNAME: 'svc-restore' },
        },
        rawTarget: 'postgres://app@db.internal/orders_restored?sslmode=verify-full&application_name=svc-restore',
      }),
    ],
    [
      'a database merely named like a system one',
      [...argv, '--target', 'postgresql://app@db.internal/postgres_copy'],
      opts({
        target: { ...TARGET, host: 'db.internal', port: 5432, user: 'app', database: 'postgres_copy', params: { PGUSER: 'app', PGHOST: 'db.internal' } },
        rawTarget: 'postgresql://app@db.internal/postgres_copy',
      }),
    ],
    ['--in-place without --confirm (a terminal prompt confirms it later)', [...argv, '--target', DSN, '--in-place'], opts({ inPlace: true })],
    ['--in-place --confirm', [...argv, '--target', DSN, '--in-place', '--confirm'], opts({ inPlace: true, confirm: true })],
    ['--jobs 1', [...argv, '--target', DSN, '--jobs', '1'], opts({ jobs: 1 })],
    ['--jobs 64, the most', [...argv, '--target', DSN, '--jobs', '64'], opts({ jobs: 64 })],
    [
      '--in-place --jobs 4 (the new database beside the target is restored in parallel)',
      [...argv, '--target', DSN, '--in-place', '--jobs', '4'],
      opts({ inPlace: true, jobs: 4 }),
    ],
    [
      '--in-place --terminate-connections --drop-previous',
      [...argv, '--target', DSN, '--in-place', '--terminate-connections', '--drop-previous'],
      opts({ inPlace: true, terminateConnections: true, dropPrevious: true }),
    ],
    ['--work-dir, absolute', [...argv, '--target', DSN, '--work-dir', '/var/tmp/svc-restore'], opts({ workDir: '/var/tmp/svc-restore' })],
    [
      '--work-dir, relative: made absolute',
      [...argv, '--target', DSN, '--work-dir', 'downloads/restore'],
      opts({ workDir: resolve(process.cwd(), 'downloads/restore') }),
    ],
    ['--keep-artifact', [...argv, '--target', DSN, '--keep-artifact'], opts({ keepArtifact: true })],
    ['--connections 1', [...argv, '--target', DSN, '--connections', '1'], opts({ connections: 1 })],
    ['--connections 16, the most', [...argv, '--target', DSN, '--connections', '16'], opts({ connections: 16 })],
    ['--no-analyze', [...argv, '--target', DSN, '--no-analyze'], opts({ analyze: false })],
    ['--receipt, absolute', [...argv, '--target', DSN, '--receipt', '/var/tmp/receipt.json'], opts({ receiptPath: '/var/tmp/receipt.json' })],
    [
      '--receipt, relative: made absolute',
      [...argv, '--target', DSN, '--receipt', 'drills/receipt.json'],
      opts({ receiptPath: resolve(process.cwd(), 'drills/receipt.json') }),
    ],
    ['--keep-partial', [...argv, '--target', DSN, '--keep-partial'], opts({ keepPartial: true })],
    ['--no-tablespaces', [...argv, '--target', DSN, '--no-tablespaces'], opts({ noTablespaces: true })],
    ['--database-settings', [...argv, '--target', DSN, '--in-place', '--database-settings'], opts({ inPlace: true, databaseSettings: true })],
  ];
}

/** Every local check of the engine flags, for `argv` (the verb with whatever it requires besides the target). */
function targetRefusals(argv: string[]): Array<[name: string, argv: string[], message: RegExp, env: Env, hidden: string[]]> {
  const notPg = /^The target must be a postgresql:\/\/ connection URI\.$/;
  const jobs = (v: string) => new RegExp(`^Invalid --jobs "${v.replace(/[.]/g, '\\.')}": a whole number from 1 to 64\\.$`);
  const system = (db: string) => new RegExp(`^Refusing to restore into the system database "${db}"\\.$`);
  return [
    ['no --target and no SVC_TARGET_DSN', argv, /^No restore target given\.$/, {}, []],
    ['an empty SVC_TARGET_DSN', argv, /^No restore target given\.$/, { SVC_TARGET_DSN: '' }, []],
    ['an empty --target', [...argv, '--target', ''], /^No restore target given\.$/, {}, []],
    ['--target without a value (commander)', [...argv, '--target'], /option '--target <dsn>' argument missing/, {}, []],
    ['a mysql:// URI', [...argv, '--target', 'mysql://app@db.internal/orders'], notPg, {}, []],
    ['an http:// URI', [...argv, '--target', 'http://db.internal/orders'], notPg, {}, []],
    ['a libpq keyword string', [...argv, '--target', 'host=db.internal dbname=orders'], notPg, {}, []],
    ['a bare database name', [...argv, '--target', 'orders_restored'], notPg, {}, []],
    ['a non-postgresql SVC_TARGET_DSN', argv, notPg, { SVC_TARGET_DSN: 'mysql://app@db.internal/orders' }, []],
    ['a non-postgresql URI with a password, not echoed', [...argv, '--target', `mysql://app:${PASSWORD}@db.internal/orders`], notPg, {}, [PASSWORD]],
    [
      'a URI naming no database',
      [...argv, '--target', `postgresql://app:${PASSWORD}@db.internal:5432`],
      /^The target URI must name a database/,
      {},
      [PASSWORD],
    ],
    [
      'a URI whose port is out of range',
      [...argv, '--target', `postgresql://app:${PASSWORD}@db.internal:99999/orders`],
      /^The target port must be a number from 1 to 65535\.$/,
      {},
      [PASSWORD],
    ],
    [
      'a PGPORT that is not a port',
      [...argv, '--target', 'postgresql://app@db.internal/orders'],
      /^The target port must be a number from 1 to 65535\.$/,
      { PGPORT: 'abc' },
      [],
    ],
    ['the system database postgres', [...argv, '--target', 'postgresql://app@db.internal/postgres'], system('postgres'), {}, []],
    ['the system database template0', [...argv, '--target', 'postgresql://app@db.internal/template0'], system('template0'), {}, []],
    ['the system database template1', [...argv, '--target', 'postgresql://app@db.internal/template1'], system('template1'), {}, []],
    [
      'the system database postgres, in place and confirmed',
      [...argv, '--target', 'postgresql://app@db.internal/postgres', '--in-place', '--confirm'],
      system('postgres'),
      {},
      [],
    ],
    [
      'a system database from SVC_TARGET_DSN, password not echoed',
      argv,
      system('template1'),
      { SVC_TARGET_DSN: `postgresql://app:${PASSWORD}@db.internal/template1` },
      [PASSWORD],
    ],
    ['--jobs 0', [...argv, '--target', DSN, '--jobs', '0'], jobs('0'), {}, []],
    ['--jobs 65', [...argv, '--target', DSN, '--jobs', '65'], jobs('65'), {}, []],
    ['--jobs -1', [...argv, '--target', DSN, '--jobs', '-1'], jobs('-1'), {}, []],
    ['--jobs 1.5', [...argv, '--target', DSN, '--jobs', '1.5'], jobs('1.5'), {}, []],
    ['--jobs abc', [...argv, '--target', DSN, '--jobs', 'abc'], jobs('abc'), {}, []],
    ['--jobs ""', [...argv, '--target', DSN, '--jobs', ''], jobs(''), {}, []],
    ['--connections 0', [...argv, '--target', DSN, '--connections', '0'], /^Invalid --connections "0": a whole number from 1 to 16\.$/, {}, []],
    ['--connections 17', [...argv, '--target', DSN, '--connections', '17'], /^Invalid --connections "17": a whole number from 1 to 16\.$/, {}, []],
    ['--connections abc', [...argv, '--target', DSN, '--connections', 'abc'], /^Invalid --connections "abc": a whole number from 1 to 16\.$/, {}, []],
    ['--receipt ""', [...argv, '--target', DSN, '--receipt', ''], /^Invalid --receipt "": it must not be empty\.$/, {}, []],
  ];
}

describe('restore create options()', () => {
  const base = ['restore', 'create', '--backup', 'bj_0007'];
  const ok: OkRow[] = [
    ...targetRows(base, created),
    ['--backup trimmed', ['restore', 'create', '--backup', ' bj_0007 ', '--target', DSN], created()],
    ['--dry-run', [...base, '--target', DSN, '--dry-run'], created({ dryRun: true })],
    ['--idempotency-key', [...base, '--target', DSN, '--idempotency-key', 'restore-2026-11-21'], created({ idempotencyKey: 'restore-2026-11-21' })],
    [
      '--database --latest',
      ['restore', 'create', '--database', 'db_orders', '--latest', '--target', DSN],
      created({ rule: { rule: 'latest', databaseId: 'db_orders' } }),
    ],
    [
      '--database --before, a time with an offset',
      ['restore', 'create', '--database', 'db_orders', '--before', '2026-11-24T14:32:00+01:00', '--target', DSN],
      created({ rule: { rule: 'before', databaseId: 'db_orders', before: '2026-11-24T14:32:00+01:00' } }),
    ],
    ['--window', ['restore', 'create', '--window', 'rw_0003', '--target', DSN], created({ rule: { rule: 'window', windowId: 'rw_0003' } })],
    [
      'every flag',
      [
        ...base,
        '--target',
        DSN,
        '--in-place',
        '--confirm',
        '--jobs',
        '2',
        '--work-dir',
        '/var/tmp/r',
        '--keep-artifact',
        '--dry-run',
        '--idempotency-key',
        'k-1',
      ],
      created({ inPlace: true, confirm: true, jobs: 2, workDir: '/var/tmp/r', keepArtifact: true, dryRun: true, idempotencyKey: 'k-1' }),
    ],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!, ok[1]!, ok[ok.length - 1]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const key = /^Invalid --idempotency-key ".*": it must be 1 to 200 printable ASCII characters \(no leading or trailing space\)\.$/;
  const refused: Array<[name: string, argv: string[], message: RegExp, env: Env, hidden: string[]]> = [
    ...targetRefusals(base),
    ...idRefusals(['restore', 'create', '--backup'], '--backup', ['--target', DSN]).map(([n, a, m]): [string, string[], RegExp, Env, string[]] => [
      `--backup: ${n}`,
      a,
      m,
      {},
      [],
    ]),
    ['no backup named at all', ['restore', 'create', '--target', DSN], /^No backup named\.$/, {}, []],
    [
      '--backup and --database',
      ['restore', 'create', '--backup', 'bj_1', '--database', 'db_1', '--latest', '--target', DSN],
      /^--backup and --database each name the backup: give one of them\.$/,
      {},
      [],
    ],
    [
      '--window and --backup',
      ['restore', 'create', '--backup', 'bj_1', '--window', 'rw_1', '--target', DSN],
      /^--backup and --window each name the backup: give one of them\.$/,
      {},
      [],
    ],
    [
      '--latest without --database',
      ['restore', 'create', '--latest', '--target', DSN],
      /^--latest picks among one database's backups: add --database <databaseId>\.$/,
      {},
      [],
    ],
    [
      '--before without --database',
      ['restore', 'create', '--before', '2026-11-24T14:32:00Z', '--target', DSN],
      /^--before picks among one database's backups: add --database <databaseId>\.$/,
      {},
      [],
    ],
    ['--latest with --backup', ['restore', 'create', '--backup', 'bj_1', '--latest', '--target', DSN], /^--latest picks among one database's backups/, {}, []],
    [
      '--database without a rule',
      ['restore', 'create', '--database', 'db_1', '--target', DSN],
      /^--database needs a rule: add --latest for its newest completed backup, or --before <ISO 8601>\.$/,
      {},
      [],
    ],
    [
      '--latest and --before',
      ['restore', 'create', '--database', 'db_1', '--latest', '--before', '2026-11-24T14:32:00Z', '--target', DSN],
      /^--latest and --before are two rules: give one of them\.$/,
      {},
      [],
    ],
    [
      'a --before without a time zone',
      ['restore', 'create', '--database', 'db_1', '--before', '2026-11-24T14:32:00', '--target', DSN],
      /^Invalid --before "2026-11-24T14:32:00": use ISO 8601 with a time zone/,
      {},
      [],
    ],
    [
      'a --before that is not a time',
      ['restore', 'create', '--database', 'db_1', '--before', 'yesterday', '--target', DSN],
      /^Invalid --before "yesterday"/,
      {},
      [],
    ],
    ['an empty --window', ['restore', 'create', '--window', ' ', '--target', DSN], /^Invalid --window " ": it must not be empty\.$/, {}, []],
    ['an empty --database', ['restore', 'create', '--database', '', '--latest', '--target', DSN], /^Invalid --database "": it must not be empty\.$/, {}, []],
    [
      'an argument besides --backup (commander)',
      ['restore', 'create', 'bj_0008', ...base.slice(2), '--target', DSN],
      /too many arguments for 'create'. Expected 0 arguments but got 1/,
      {},
      [],
    ],
    ['--confirm without --in-place', [...base, '--target', DSN, '--confirm'], /^--confirm only applies to --in-place restores\.$/, {}, []],
    [
      '--confirm without --in-place, target from SVC_TARGET_DSN',
      [...base, '--confirm'],
      /^--confirm only applies to --in-place restores\.$/,
      { SVC_TARGET_DSN: ENV_DSN },
      [],
    ],
    [
      '--terminate-connections without --in-place',
      [...base, '--target', DSN, '--terminate-connections'],
      /^--terminate-connections only applies to --in-place restores\.$/,
      {},
      [],
    ],
    ['--drop-previous without --in-place', [...base, '--target', DSN, '--drop-previous'], /^--drop-previous only applies to --in-place restores\.$/, {}, []],
    ['--idempotency-key ""', [...base, '--target', DSN, '--idempotency-key', ''], key, {}, []],
    ['--idempotency-key of 201 characters', [...base, '--target', DSN, '--idempotency-key', 'k'.repeat(201)], key, {}, []],
    ['--idempotency-key with a trailing space', [...base, '--target', DSN, '--idempotency-key', 'k-1 '], key, {}, []],
    ['--idempotency-key with a non-ASCII letter', [...base, '--target', DSN, '--idempotency-key', 'clé'], key, {}, []],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env, hidden) => expectUsage(argv, message, env, hidden));
});

describe('restore run options()', () => {
  const ok: OkRow[] = [
    ...targetRows(['restore', 'run'], engine),
    // The mode comes from the piped createRestore body: --confirm alone confirms an in_place job there.
    ['--confirm without --in-place', ['restore', 'run', '--target', DSN, '--confirm'], engine({ confirm: true })],
    [
      'every flag',
      ['restore', 'run', '--target', DSN, '--in-place', '--confirm', '--jobs', '2', '--work-dir', '/var/tmp/r', '--keep-artifact'],
      engine({ inPlace: true, confirm: true, jobs: 2, workDir: '/var/tmp/r', keepArtifact: true }),
    ],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!, ok[1]!, ok[ok.length - 1]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: Array<[name: string, argv: string[], message: RegExp, env: Env, hidden: string[]]> = [
    ...targetRefusals(['restore', 'run']),
    ['--backup, which only create has (commander)', ['restore', 'run', '--target', DSN, '--backup', 'bj_0007'], /unknown option '--backup'/, {}, []],
    ['--dry-run, which only create has (commander)', ['restore', 'run', '--target', DSN, '--dry-run'], /unknown option '--dry-run'/, {}, []],
    [
      '--idempotency-key: run creates nothing (commander)',
      ['restore', 'run', '--target', DSN, '--idempotency-key', 'k-1'],
      /unknown option '--idempotency-key'/,
      {},
      [],
    ],
    ['an argument (commander)', ['restore', 'run', 'restore.json', '--target', DSN], /too many arguments for 'run'. Expected 0 arguments but got 1/, {}, []],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env, hidden) => expectUsage(argv, message, env, hidden));
});

describe('restore create and run: workDir is always an absolute path', () => {
  const rows: Array<[name: string, workDirArgs: string[], expected: string]> = [
    ['the default, the OS temp dir', [], TMP],
    ['a relative --work-dir', ['--work-dir', 'dl'], resolve(process.cwd(), 'dl')],
    ['--work-dir .', ['--work-dir', '.'], process.cwd()],
    ['a relative --work-dir climbing out', ['--work-dir', '../elsewhere/dl'], resolve(process.cwd(), '..', 'elsewhere', 'dl')],
    ['an absolute --work-dir with dot segments, normalised', ['--work-dir', '/var/tmp/a/../b/./c/'], '/var/tmp/b/c'],
  ];
  it.each(
    rows.flatMap(([name, args, expected]) => [
      [`create: ${name}`, ['restore', 'create', '--backup', 'bj_0007', '--target', DSN, ...args], expected] as const,
      [`run: ${name}`, ['restore', 'run', '--target', DSN, ...args], expected] as const,
    ]),
  )('%s', async (_name, argv, expected) => {
    const r = await parseOptions([...argv]);
    if (!r.ok) expect.fail(`${argv.join(' ')}: ${r.message}`);
    const { workDir } = r.options as { workDir: string };
    expect(isAbsolute(workDir)).toBe(true);
    expect(workDir).toBe(expected);
  });
});

describe('restore get options()', () => {
  const ok: OkRow[] = [
    ['an id: show once, no watching', ['restore', 'get', 'rj_0001'], { restoreJobId: 'rj_0001', watchTimeoutMs: undefined }],
    ['the id trimmed', ['restore', 'get', ' rj_0001 '], { restoreJobId: 'rj_0001', watchTimeoutMs: undefined }],
    ['--watch: an hour by default', ['restore', 'get', 'rj_0001', '--watch'], { restoreJobId: 'rj_0001', watchTimeoutMs: 3_600_000 }],
    ['--watch --wait-timeout 30', ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout', '30'], { restoreJobId: 'rj_0001', watchTimeoutMs: 30_000 }],
    ['--watch --wait-timeout 0.5', ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout', '0.5'], { restoreJobId: 'rj_0001', watchTimeoutMs: 500 }],
    [
      '--watch --wait-timeout of 7 days, the longest',
      ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout', '604800'],
      { restoreJobId: 'rj_0001', watchTimeoutMs: 604_800_000 },
    ],
    [
      'a valid --wait-timeout alone does not start watching',
      ['restore', 'get', 'rj_0001', '--wait-timeout', '30'],
      { restoreJobId: 'rj_0001', watchTimeoutMs: undefined },
    ],
    ['flags before the id', ['restore', 'get', '--wait-timeout', '45', '--watch', 'rj_0001'], { restoreJobId: 'rj_0001', watchTimeoutMs: 45_000 }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!, ok[3]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const seconds = (v: string) => new RegExp(`^Invalid --wait-timeout "${v}": a positive number of seconds, at most 604800 \\(7 days\\)\\.$`);
  const refused: UsageRow[] = [
    ...idRefusals(['restore', 'get'], 'restore job id'),
    ['no id (commander)', ['restore', 'get', '--watch'], /^missing required argument 'restoreJobId'$/],
    ['two ids (commander)', ['restore', 'get', 'rj_0001', 'rj_0002'], /too many arguments for 'get'. Expected 1 argument but got 2/],
    ['--watch --wait-timeout 0', ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout', '0'], seconds('0')],
    ['--watch --wait-timeout -1', ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout', '-1'], seconds('-1')],
    ['--watch --wait-timeout abc', ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout', 'abc'], seconds('abc')],
    ['--watch --wait-timeout ""', ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout', ''], seconds('')],
    ['--watch --wait-timeout over 7 days', ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout', '604801'], seconds('604801')],
    ['a bad --wait-timeout even without --watch, as backups trigger does', ['restore', 'get', 'rj_0001', '--wait-timeout', 'abc'], seconds('abc')],
    [
      '--wait-timeout without a value (commander)',
      ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout'],
      /option '--wait-timeout <seconds>' argument missing/,
    ],
    ["--wait, which is backups trigger's (commander)", ['restore', 'get', 'rj_0001', '--wait'], /unknown option '--wait'/],
    ['--target, which only create and run have (commander)', ['restore', 'get', 'rj_0001', '--target', DSN], /unknown option '--target'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});
