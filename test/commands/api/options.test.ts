import { describe, it } from 'vitest';
import { expectOptions, expectUsage, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

/** svc api is a single-verb command whose first argument is a path, not a verb. */
const VERB = 'api';

const get = (path: string, more: Record<string, unknown> = {}) => ({
  method: 'GET',
  path,
  fields: [],
  input: undefined,
  paginate: false,
  idempotencyKey: undefined,
  ...more,
});
const post = (path: string, more: Record<string, unknown> = {}) => get(path, { method: 'POST', ...more });

describe('api options(): the path', () => {
  const ok: OkRow[] = [
    ['a path with its leading slash', ['api', '/databases'], get('/databases')],
    ['a path without one gets it', ['api', 'databases/db_orders'], get('/databases/db_orders')],
    ['spaces around are trimmed', ['api', ' /profile '], get('/profile')],
    ['a query string is kept as given', ['api', 'databases?limit=5&cursor=cur_db_2'], get('/databases?limit=5&cursor=cur_db_2')],
    ['a nested path with a query', ['api', 'databases/db_orders/backups?limit=2'], get('/databases/db_orders/backups?limit=2')],
    ['dots inside a segment are not dot segments', ['api', 'tools/svc.backup.trigger'], get('/tools/svc.backup.trigger')],
    ['a colon after the first segment is not a URL scheme', ['api', '/recovery/windows/w:1/proof'], get('/recovery/windows/w:1/proof')],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env, VERB));

  it.each(withGlobals([ok[0]!]))('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env, VERB));

  const refused: UsageRow[] = [
    [
      'an https URL',
      ['api', 'https://evil.example/api/v1/profile'],
      /"https:\/\/evil\.example\/api\/v1\/profile" is a URL; svc api takes a path below \/api\/v1/,
    ],
    ['an http URL to loopback', ['api', 'http://127.0.0.1:9/api/v1/profile'], /is a URL/],
    ['a scheme in capitals', ['api', 'HTTPS://evil.example/x'], /is a URL/],
    ['a protocol-relative URL', ['api', '//evil.example/api/v1/profile'], /"\/\/evil\.example\/api\/v1\/profile" is a URL/],
    ['another scheme', ['api', 'file:/etc/passwd'], /is a URL/],
    ['an empty path', ['api', ''], /^The path is empty\.$/],
    ['a blank path', ['api', '   '], /^The path is empty\.$/],
    ['a ".." segment', ['api', 'databases/../profile'], /"\.\." segment/],
    ['a leading ".."', ['api', '../admin'], /"\.\." segment/],
    ['a percent-encoded ".."', ['api', 'databases/%2E%2e/profile'], /"\.\." segment/],
    ['a "." segment', ['api', 'databases/.'], /"\." or "\.\." segment/],
    ['a backslash', ['api', 'databases\\db_1'], /backslash/],
    ['a fragment', ['api', 'databases#db_1'], /contains "#"/],
    ['a newline', ['api', 'databases\nprofile'], /control characters/],
    ['the /api/v1 prefix, which svc adds', ['api', '/api/v1/databases'], /starts with \/api\/v1, which svc adds itself/],
    ['no path (commander)', ['api'], /^missing required argument 'path'$/],
    ['two paths (commander)', ['api', '/profile', '/databases'], /too many arguments for 'api'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('api options(): method, fields and body', () => {
  const ok: OkRow[] = [
    ['-X POST without a body', ['api', '-X', 'POST', 'databases/db_orders/backups'], post('/databases/db_orders/backups')],
    ['-X in lower case', ['api', '-X', 'post', '/x'], post('/x')],
    ['--method GET', ['api', '--method', 'GET', '/profile'], get('/profile')],
    [
      '-f makes it a POST',
      ['api', 'databases/db_orders/backups', '-f', 'trigger=adhoc'],
      post('/databases/db_orders/backups', { fields: [{ key: 'trigger', value: 'adhoc' }] }),
    ],
    [
      '-f values are typed like gh api -F',
      [
        'api',
        '/x',
        '-f',
        'yes=true',
        '-f',
        'no=false',
        '-f',
        'none=null',
        '-f',
        'n=42',
        '-f',
        'neg=-1.5',
        '-f',
        'exp=1e3',
        '-f',
        'quoted="123"',
        '-f',
        'text=hello world',
        '-f',
        'zero-padded=007',
        '-f',
        'empty=',
        '-f',
        'eq=a=b',
        '-f',
        'huge=12345678901234567890',
        '-f',
        'escaped="a\\"b"',
      ],
      post('/x', {
        fields: [
          { key: 'yes', value: true },
          { key: 'no', value: false },
          { key: 'none', value: null },
          { key: 'n', value: 42 },
          { key: 'neg', value: -1.5 },
          { key: 'exp', value: 1000 },
          { key: 'quoted', value: '123' },
          { key: 'text', value: 'hello world' },
          { key: 'zero-padded', value: '007' },
          { key: 'empty', value: '' },
          { key: 'eq', value: 'a=b' },
          // Too large for a JSON number to carry exactly: sent as the string typed, not rounded.
          { key: 'huge', value: '12345678901234567890' },
          { key: 'escaped', value: 'a"b' },
        ],
      }),
    ],
    [
      '-f key=@file and @- are read by run()',
      ['api', '/x', '-f', 'a=@body.txt', '-f', 'b=@-'],
      post('/x', {
        fields: [
          { key: 'a', file: 'body.txt' },
          { key: 'b', file: '-' },
        ],
      }),
    ],
    ['--input FILE makes it a POST', ['api', 'restores', '--input', 'req.json'], post('/restores', { input: 'req.json' })],
    ['--input - reads stdin', ['api', 'restores', '--input', '-'], post('/restores', { input: '-' })],
    [
      '-X GET with -f: query parameters',
      ['api', '-X', 'GET', 'evidence', '-f', 'databaseId=db_orders', '-f', 'limit=5'],
      get('/evidence', {
        fields: [
          { key: 'databaseId', value: 'db_orders' },
          { key: 'limit', value: 5 },
        ],
      }),
    ],
    ['--paginate', ['api', 'databases', '--paginate'], get('/databases', { paginate: true })],
    [
      '--paginate keeps -f fields on a GET',
      ['api', 'databases', '--paginate', '-f', 'limit=2'],
      get('/databases', { paginate: true, fields: [{ key: 'limit', value: 2 }] }),
    ],
    [
      '--idempotency-key on a POST',
      ['api', '-X', 'POST', 'databases/db_1/backups', '--idempotency-key', 'nightly-1'],
      post('/databases/db_1/backups', { idempotencyKey: 'nightly-1' }),
    ],
    [
      '--idempotency-key with -f',
      ['api', 'databases/db_1/backups', '-f', 'trigger=adhoc', '--idempotency-key', 'k'],
      post('/databases/db_1/backups', { fields: [{ key: 'trigger', value: 'adhoc' }], idempotencyKey: 'k' }),
    ],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env, VERB));

  it.each(withGlobals([ok[3]!, ok[7]!]))('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env, VERB));

  const refused: UsageRow[] = [
    ['-X PUT', ['api', '-X', 'PUT', '/x'], /^-X PUT: the API v1 has GET and POST operations only\.$/],
    ['-X DELETE', ['api', '-X', 'DELETE', '/databases/db_1'], /GET and POST operations only/],
    ['-X HEAD', ['api', '--method', 'head', '/profile'], /GET and POST operations only/],
    ['-f without "="', ['api', '/x', '-f', 'trigger'], /^-f "trigger": a field is key=value\.$/],
    ['-f without a key', ['api', '/x', '-f', '=adhoc'], /a field is key=value/],
    ['-f with the same key twice', ['api', '/x', '-f', 'a=1', '-f', 'a=2'], /^-f a is given twice\.$/],
    ['-f key=@ without a file', ['api', '/x', '-f', 'a=@'], /name the file/],
    ['-f @- twice', ['api', '/x', '-f', 'a=@-', '-f', 'b=@-'], /Only one -f value can be read from stdin/],
    ['-f with a broken JSON string', ['api', '/x', '-f', 'a="a\\q"'], /must be a JSON string/],
    ['-f and --input together', ['api', '/x', '-f', 'a=1', '--input', 'req.json'], /-f and --input both give the request body/],
    ['--input ""', ['api', '/x', '--input', ''], /--input needs a file name/],
    ['-X GET --input', ['api', '-X', 'GET', '/x', '--input', 'req.json'], /A GET sends no body/],
    ['--paginate -X POST', ['api', '-X', 'POST', '/x', '--paginate'], /--paginate follows the next cursor of a GET list/],
    ['--paginate --input', ['api', '/x', '--paginate', '--input', 'req.json'], /--paginate follows the next cursor of a GET list/],
    ['--idempotency-key on a GET', ['api', '/profile', '--idempotency-key', 'k'], /--idempotency-key is for POST/],
    ['an empty --idempotency-key', ['api', '-X', 'POST', '/x', '--idempotency-key', ''], /^Invalid --idempotency-key "": it must be 1 to 200 printable ASCII/],
    ['a 201-character --idempotency-key', ['api', '-X', 'POST', '/x', '--idempotency-key', 'k'.repeat(201)], /Invalid --idempotency-key/],
    ['an --idempotency-key with a newline', ['api', '-X', 'POST', '/x', '--idempotency-key', 'a\nb'], /Invalid --idempotency-key/],
    ['-X without a value (commander)', ['api', '/x', '-X'], /option '-X, --method <method>' argument missing/],
    ['an unknown option (commander)', ['api', '/x', '--header', 'a:b'], /unknown option '--header'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});
