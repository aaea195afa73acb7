import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { expectNoToken, fixtureCopy, run, runCase, TOKEN, useServer, type Case, type Route } from '../harness.js';

const { server, configHome } = useServer();

const files = mkdtempSync(join(tmpdir(), 'svc-api-test-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const path = join(files, name);
  writeFileSync(path, text);
  return path;
}

const page1: Route = { path: '/databases', fixture: 'databases-page1', whenQuery: { cursor: null } };
const page2: Route = { path: '/databases', fixture: 'databases-page2', whenQuery: { cursor: 'cur_db_2' } };
const page2Repeating = fixtureCopy('databases-page2');
page2Repeating.nextCursor = 'cur_db_2';
const merged = { databases: [...fixture('databases-page1').databases, ...fixture('databases-page2').databases] };

/** A body as a service might format it: spacing, key order and an integer beyond 2^53 must reach a script unchanged. */
const RECEIVED = '{"profile": {"scopes":[],"apiKeyId":"key_1"},  "counter": 12345678901234567890}';

const posts = () => server.exchanges.filter((e) => e.method === 'POST');

const cases: Case[] = [
  {
    name: 'GET: the body exactly as received when stdout is not a terminal',
    argv: ['api', '/profile'],
    routes: [{ path: '/profile', raw: RECEIVED, headers: { 'Content-Type': 'application/json' } }],
    code: 0,
    stderrEmpty: true,
  },
  {
    name: 'a path without its leading slash, with a query string',
    argv: ['api', 'databases?limit=2'],
    routes: [{ path: '/databases', fixture: 'databases-page1', whenQuery: { limit: '2' } }],
    requests: [{ path: '/databases', query: { limit: '2' } }],
    code: 0,
    stdoutJson: fixture('databases-page1'),
  },
  {
    name: 'response schemas are not enforced: a body no command would accept is printed',
    argv: ['api', 'databases/db_orders'],
    routes: [{ path: '/databases/db_orders', body: { database: { id: 'db_orders', provider: 'mysql', retentionPolicyDays: 0 } } }],
    code: 0,
    stdoutJson: { database: { id: 'db_orders', provider: 'mysql', retentionPolicyDays: 0 } },
  },
  {
    name: '-X GET with -f sends the fields as query parameters',
    argv: ['api', '-X', 'GET', 'evidence', '-f', 'databaseId=db_orders', '-f', 'limit=5'],
    routes: [{ path: '/evidence', fixture: 'evidence-list', whenQuery: { databaseId: 'db_orders', limit: '5' } }],
    requests: [{ path: '/evidence', query: { databaseId: 'db_orders', limit: '5' } }],
    code: 0,
    stdoutJson: fixture('evidence-list'),
  },
  {
    name: '--paginate follows nextCursor and prints one merged document without a cursor',
    argv: ['api', 'databases', '--paginate'],
    routes: [page1, page2],
    requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
    code: 0,
    stdoutJson: merged,
    stderrEmpty: true,
  },
  {
    name: '--paginate keeps the query of the path on every page',
    argv: ['api', 'databases?limit=2', '--paginate'],
    routes: [page1, page2],
    requests: [
      { path: '/databases', query: { limit: '2' } },
      { path: '/databases', query: { limit: '2', cursor: 'cur_db_2' } },
    ],
    code: 0,
    stdoutJson: merged,
  },
  {
    name: '--paginate of a body without a list prints it as it is',
    argv: ['api', 'profile', '--paginate'],
    routes: [{ path: '/profile', fixture: 'profile' }],
    code: 0,
    stdoutJson: fixture('profile'),
  },
  {
    name: '--paginate of a page with a next cursor and two arrays: exit 1, nothing guessed',
    argv: ['api', 'databases', '--paginate'],
    routes: [{ path: '/databases', body: { databases: [], warnings: [], nextCursor: 'cur_2' }, requestId: 'req_two_lists' }],
    code: 1,
    stdoutEmpty: true,
    stderr: ['names a next cursor, but its body has 2 arrays (databases, warnings)', 'req_two_lists', 'Drop --paginate'],
  },
  {
    name: '--paginate stops on a repeated cursor with a warning',
    argv: ['api', 'databases', '--paginate'],
    routes: [page1, { path: '/databases', body: page2Repeating, whenQuery: { cursor: 'cur_db_2' } }],
    requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
    code: 0,
    stdoutJson: merged,
    stderr: [/warning: .*cursor.*already/i],
  },
  {
    name: '--jq filters the response: strings raw, one result per line',
    argv: ['api', 'databases', '--jq', '.databases[] | .id, .retentionPolicyDays'],
    routes: [{ path: '/databases', fixture: 'databases-page1' }],
    code: 0,
    stderrEmpty: true,
  },
  {
    name: '--jq applies to the merged document of --paginate',
    argv: ['api', 'databases', '--paginate', '--jq', '[.databases[].id] | join(",")'],
    routes: [page1, page2],
    requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
    code: 0,
  },
  {
    name: 'an absolute URL is refused: exit 2 and nothing sent',
    argv: ['api', 'https://evil.example/api/v1/profile'],
    requests: [],
    code: 2,
    stdoutEmpty: true,
    stderr: ['is a URL', '--base-url'],
  },
  {
    name: '404 is exit 5 with the request id, nothing on stdout',
    argv: ['api', 'databases/db_gone'],
    routes: [{ path: '/databases/db_gone', fixture: 'error-404', status: 404 }],
    code: 5,
    stdoutEmpty: true,
    stderr: ['Protected database not found.', 'request id: req_nf_1', 'HTTP 404'],
  },
  {
    name: '403 is exit 4 naming the required scope',
    argv: ['api', 'evidence'],
    routes: [{ path: '/evidence', fixture: 'error-403', status: 403 }],
    code: 4,
    stdoutEmpty: true,
    stderr: ['required scope: evidence:read'],
  },
  {
    name: 'a 2xx body that is not JSON is exit 1 with the request id',
    argv: ['api', 'profile'],
    routes: [{ path: '/profile', raw: '<html>maintenance</html>', requestId: 'req_html' }],
    code: 1,
    stdoutEmpty: true,
    stderr: ['The response of GET /api/v1/profile (HTTP 200) is not JSON.', 'req_html'],
  },
  {
    name: '--verbose: one line per exchange, with the request id',
    argv: ['api', 'profile', '--verbose'],
    routes: [{ path: '/profile', fixture: 'profile', requestId: 'req_verbose' }],
    code: 0,
    stderr: [/http GET \/api\/v1\/profile 200 \d+ms request-id=req_verbose ratelimit-limit=120/],
  },
];

/** A backup trigger the service first answers 503, then accepts: one retry of the same POST. */
const TRIGGER_AFTER_503: Pick<Case, 'routes' | 'requests'> = {
  routes: [
    { method: 'POST', path: '/databases/db_orders/backups', fixture: 'error-500', status: 503, once: true },
    { method: 'POST', path: '/databases/db_orders/backups', fixture: 'trigger-backup', status: 202 },
  ],
  requests: [
    { method: 'POST', path: '/databases/db_orders/backups' },
    { method: 'POST', path: '/databases/db_orders/backups' },
  ],
};

describe('svc api', () => {
  it.each(cases)('$name', async (c) => {
    const r = await runCase(server, configHome(), c);
    if (c.name.startsWith('GET: the body exactly')) expect(r.stdout).toBe(`${RECEIVED}\n`);
    if (c.name.startsWith('--jq filters')) expect(r.stdout).toBe('db_orders\n30\ndb_billing\n90\n');
    if (c.name.startsWith('--jq applies')) expect(r.stdout).toBe('db_orders,db_billing,db_analytics\n');
  });

  describe('--paginate writes the merged document as the pages arrive, as it printed it held', () => {
    const paginated: Case = {
      name: 'paginate',
      argv: ['api', 'databases', '--paginate'],
      routes: [page1, page2],
      requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
      code: 0,
    };

    it('piped: one line of JSON', async () => {
      const r = await runCase(server, configHome(), paginated);
      expect(r.stdout).toBe(`${JSON.stringify(merged)}\n`);
    });

    it('on a terminal: indented', async () => {
      const r = await runCase(server, configHome(), paginated, { tty: true });
      expect(r.stdout).toBe(`${JSON.stringify(merged, null, 2)}\n`);
    });

    it('a page that fails after the first leaves the document unterminated, and the exit code says so', async () => {
      const r = await runCase(server, configHome(), {
        ...paginated,
        routes: [page1, { path: '/databases', raw: 'not json', whenQuery: { cursor: 'cur_db_2' }, requestId: 'req_p2' }],
        code: 1,
        stderr: ['is not JSON', 'req_p2'],
      });
      expect(r.stdout).toBe(JSON.stringify({ databases: fixture('databases-page1').databases }).slice(0, -2));
    });
  });

  it('on a terminal the body is indented', async () => {
    const r = await runCase(
      server,
      configHome(),
      { name: 'tty', argv: ['api', '/profile'], routes: [{ path: '/profile', raw: RECEIVED }], code: 0 },
      { tty: true },
    );
    expect(r.stdout).toBe(`${JSON.stringify(JSON.parse(RECEIVED), null, 2)}\n`);
  });

  it('-f sends a POST with a typed JSON body, Content-Type and a UUID Idempotency-Key', async () => {
    const r = await runCase(server, configHome(), {
      name: 'post',
      argv: ['api', 'databases/db_orders/backups', '-f', 'trigger=adhoc', '-f', 'n=5', '-f', 'dry=false', '-f', 'note=null', '-f', 'id="123"'],
      routes: [{ method: 'POST', path: '/databases/db_orders/backups', fixture: 'trigger-backup', status: 202 }],
      code: 0,
      stdoutJson: fixture('trigger-backup'),
    });
    const [req] = posts();
    expect(JSON.parse(req!.body)).toStrictEqual({ trigger: 'adhoc', n: 5, dry: false, note: null, id: '123' });
    expect(req!.headers.get('content-type')).toBe('application/json');
    expect(req!.headers.get('idempotency-key')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(r.stderr).toBe('');
  });

  it('a POST retried after a 503 carries the same Idempotency-Key', async () => {
    const sleeps: number[] = [];
    await runCase(
      server,
      configHome(),
      {
        name: 'retry',
        argv: ['api', '-X', 'POST', 'databases/db_orders/backups'],
        ...TRIGGER_AFTER_503,
        code: 0,
        stdoutJson: fixture('trigger-backup'),
      },
      { sleeps },
    );
    const keys = posts().map((p) => p.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(posts().map((p) => p.body)).toEqual(['{}', '{}']);
    expect(sleeps).toHaveLength(1);
  });

  it('--idempotency-key is sent as given, on every retry', async () => {
    await runCase(server, configHome(), {
      name: 'given key',
      argv: ['api', 'databases/db_orders/backups', '-f', 'trigger=adhoc', '--idempotency-key', 'nightly-2026-11-21'],
      ...TRIGGER_AFTER_503,
      code: 0,
    });
    expect(posts().map((p) => p.headers.get('idempotency-key'))).toEqual(['nightly-2026-11-21', 'nightly-2026-11-21']);
  });

  it('--input FILE sends the file as the body', async () => {
    const body = { backupJobId: 'bj_0010', targetRedactedDsn: 'postgresql://app@localhost:5432/orders', mode: 'new_database', confirmDestructive: false };
    const path = file('restore.json', `${JSON.stringify(body, null, 2)}\n`);
    await runCase(server, configHome(), {
      name: 'input file',
      argv: ['api', 'restores', '--input', path],
      routes: [{ method: 'POST', path: '/restores', body: { ok: true }, status: 202 }],
      code: 0,
      stdoutJson: { ok: true },
    });
    expect(JSON.parse(posts()[0]!.body)).toStrictEqual(body);
  });

  it('--input - reads the body from stdin', async () => {
    await runCase(
      server,
      configHome(),
      {
        name: 'input stdin',
        argv: ['api', 'databases/db_orders/backups', '--input', '-'],
        routes: [{ method: 'POST', path: '/databases/db_orders/backups', fixture: 'trigger-backup', status: 202 }],
        code: 0,
        stdoutJson: fixture('trigger-backup'),
      },
      { stdin: '{"trigger": "adhoc"}\n' },
    );
    expect(JSON.parse(posts()[0]!.body)).toStrictEqual({ trigger: 'adhoc' });
  });

  it('-f key=@file sends the text of the file, without its final newline', async () => {
    const path = file('trigger.txt', 'adhoc\n');
    await runCase(server, configHome(), {
      name: '@file',
      argv: ['api', 'databases/db_orders/backups', '-f', `trigger=@${path}`],
      routes: [{ method: 'POST', path: '/databases/db_orders/backups', fixture: 'trigger-backup', status: 202 }],
      code: 0,
    });
    expect(JSON.parse(posts()[0]!.body)).toStrictEqual({ trigger: 'adhoc' });
  });

  it.each([
    ['input that is not JSON', ['--input', '-'], '{"trigger": adhoc}', /--input stdin is not JSON/],
    ['empty input', ['--input', '-'], '', /--input stdin is not JSON/],
    ['a missing --input file', ['--input', join(files, 'absent.json')], undefined, /Cannot read --input from ".*absent\.json" \(ENOENT\)/],
    ['a missing -f @file', ['-f', `trigger=@${join(files, 'absent.txt')}`], undefined, /Cannot read -f trigger from ".*absent\.txt" \(ENOENT\)/],
  ])('%s: exit 2, nothing sent', async (_name, flags, stdin, message) => {
    const r = await run(server, configHome(), ['api', 'databases/db_orders/backups', ...flags], { stdin });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(server.exchanges).toEqual([]);
    expectNoToken(r);
  });

  it('an absolute URL naming the configured service itself is refused too: the path is what svc api takes', async () => {
    for (const target of [`${server.baseUrl}/api/v1/profile`, `//127.0.0.1:${server.port}/api/v1/profile`]) {
      const r = await run(server, configHome(), ['api', target]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is a URL');
      expectNoToken(r);
    }
    expect(server.exchanges).toEqual([]);
  });

  it('a 409 on a POST is exit 6; a 400 is exit 2', async () => {
    await runCase(server, configHome(), {
      name: '409',
      argv: ['api', '-X', 'POST', 'databases/db_orders/backups'],
      routes: [{ method: 'POST', path: '/databases/db_orders/backups', fixture: 'error-409', status: 409 }],
      code: 6,
      stdoutEmpty: true,
      stderr: ['HTTP 409'],
    });
    server.reset();
    await runCase(
      server,
      configHome(),
      {
        name: '400',
        argv: ['api', '-X', 'POST', 'restores', '--input', '-'],
        routes: [{ method: 'POST', path: '/restores', fixture: 'error-400', status: 400 }],
        code: 2,
        stdoutEmpty: true,
        stderr: ['HTTP 400'],
      },
      { stdin: '{}' },
    );
  });

  it('a body that echoes the token is printed with the token redacted', async () => {
    const echo = fixtureCopy('profile');
    echo.profile.clientLabel = `label ${TOKEN}`;
    const r = await runCase(server, configHome(), { name: 'echo', argv: ['api', 'profile'], routes: [{ path: '/profile', body: echo }], code: 0 });
    expect(JSON.parse(r.stdout).profile.clientLabel).toBe('label [redacted]');
  });
});
