import { describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { run, runCase, useServer, type Case, type Route } from '../commands/harness.js';

const { server, configHome } = useServer();

/** The contract's exit code for each service error that survived its retries (cli-contract 5). */
const statusRows: Array<{
  status: number;
  exit: number;
  argv: string[];
  path: string;
  query?: Record<string, string>;
  attempts: number;
  extra?: Array<string | RegExp>;
}> = [
  {
    status: 400,
    exit: 2,
    argv: ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T12:00:00Z'],
    path: '/databases/db_orders/recovery/candidate',
    query: { incidentTime: '2026-11-21T12:00:00Z' },
    attempts: 1,
  },
  { status: 401, exit: 3, argv: ['profile'], path: '/profile', attempts: 1, extra: ['svc auth login'] },
  {
    status: 403,
    exit: 4,
    argv: ['evidence', 'list'],
    path: '/evidence',
    attempts: 1,
    extra: [/required scope:\s+evidence:read/, /next action:\s+Issue a token with evidence:read in Settings > API tokens\./],
  },
  { status: 404, exit: 5, argv: ['databases', 'get', 'db_gone'], path: '/databases/db_gone', attempts: 1 },
  { status: 409, exit: 6, argv: ['backups', 'get', 'bj_0007'], path: '/backups/bj_0007', attempts: 1 },
  {
    status: 412,
    exit: 7,
    argv: ['restore', 'get', 'rj_0001'],
    path: '/restores/rj_0001',
    attempts: 1,
    extra: [/next action:\s+Pick a completed backup: svc backups list <databaseId>\./],
  },
  { status: 429, exit: 8, argv: ['destinations', 'list'], path: '/destinations', attempts: 5, extra: [/try again in 1s/] },
  { status: 500, exit: 9, argv: ['tools', 'list'], path: '/mcp/tools', attempts: 5 },
];

/**
 * A 404 for a database id is followed by one list read, in case the value is a database's name
 * (cli-contract 4, v5): the list names none, so the 404 stands.
 */
const LIST: Route = { path: '/databases', fixture: 'databases-page2' };
const lookup = (status: number, path: string) =>
  status === 404 && path.startsWith('/databases/') ? { routes: [LIST], requests: [{ path: '/databases' }] } : { routes: [], requests: [] };

function errorRoute(row: (typeof statusRows)[number]): Route {
  return {
    path: row.path,
    fixture: `error-${row.status}`,
    status: row.status,
    headers: row.status === 429 ? { 'Retry-After': '1' } : {},
  };
}

const humanCases: Case[] = statusRows.map((row) => {
  const err = fixture(`error-${row.status}`).error;
  return {
    name: `HTTP ${row.status} -> exit ${row.exit}: message, request id and status on stderr`,
    argv: row.argv,
    routes: [errorRoute(row), ...lookup(row.status, row.path).routes],
    requests: [...Array.from({ length: row.attempts }, () => ({ path: row.path, query: row.query })), ...lookup(row.status, row.path).requests],
    code: row.exit,
    stdoutEmpty: true,
    stderr: [`error: ${err.message}`, new RegExp(`request id: ${err.requestId}\\s+\\(HTTP ${row.status}\\)`), ...(row.extra ?? [])],
    stderrNot: [/^\{/],
  };
});

describe('service errors map to exit codes (human)', () => {
  it.each(humanCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

describe('service errors under --json: the envelope on stderr, nothing on stdout', () => {
  it.each(statusRows)('HTTP $status -> exit $exit', async (row) => {
    const err = fixture(`error-${row.status}`).error;
    const sleeps: number[] = [];
    const r = await runCase(
      server,
      configHome(),
      {
        name: `${row.status} json`,
        argv: [...row.argv, '--json'],
        routes: [errorRoute(row), ...lookup(row.status, row.path).routes],
        requests: [...Array.from({ length: row.attempts }, () => ({ path: row.path, query: row.query })), ...lookup(row.status, row.path).requests],
        code: row.exit,
        stdoutEmpty: true,
      },
      { sleeps },
    );
    // One line per retry said (cli-contract 4), then the envelope.
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(row.attempts);
    for (const retry of lines.slice(0, -1)) expect(retry).toMatch(/; retrying in \d+(\.\d)?s \(\d\/4\)$/);
    const envelope = JSON.parse(lines.at(-1)!);
    expect(Object.keys(envelope)).toEqual(['error']);
    for (const key of Object.keys(envelope.error)) {
      expect(['code', 'message', 'requestId', 'requiredScope', 'nextAction', 'status']).toContain(key);
    }
    expect(envelope.error).toMatchObject({ code: err.code, message: err.message, requestId: err.requestId, status: row.status });
    if (err.requiredScope) expect(envelope.error.requiredScope).toBe(err.requiredScope);
    if (err.nextAction) expect(envelope.error.nextAction).toBe(err.nextAction);
    expect(sleeps).toHaveLength(row.attempts - 1);
  });
});

describe('retries before giving up', () => {
  it('429 waits at least Retry-After before each retry, then exits 8', async () => {
    const sleeps: number[] = [];
    await runCase(
      server,
      configHome(),
      {
        name: '429 retry-after',
        argv: ['databases', 'list'],
        routes: [{ path: '/databases', fixture: 'error-429', status: 429, headers: { 'Retry-After': '3' } }],
        requests: Array.from({ length: 5 }, () => ({ path: '/databases' })),
        code: 8,
        stderr: ['Rate limit exceeded.', 'req_rl_1', 'try again in 3s'],
      },
      { sleeps },
    );
    expect(sleeps).toHaveLength(4);
    for (const ms of sleeps) expect(ms).toBeGreaterThanOrEqual(3000);
  });

  it('429 then 200 succeeds after one wait', async () => {
    const sleeps: number[] = [];
    await runCase(
      server,
      configHome(),
      {
        name: '429 then ok',
        argv: ['databases', 'list', '--json'],
        routes: [
          { path: '/databases', fixture: 'error-429', status: 429, headers: { 'Retry-After': '2' }, once: true },
          { path: '/databases', fixture: 'databases-page2' },
        ],
        requests: [{ path: '/databases' }, { path: '/databases' }],
        code: 0,
        stdoutJson: fixture('databases-page2'),
      },
      { sleeps },
    ).then((r) => {
      // The one retry is said, nothing else: "Rate limited; retrying in 2s (1/4)" plus the jitter.
      expect(r.stderr).toMatch(/^Rate limited; retrying in [23]s \(1\/4\)\n$/);
      return r;
    });
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);
  });

  it('--max-retries 1 makes two attempts at a 500', async () => {
    const sleeps: number[] = [];
    await runCase(
      server,
      configHome(),
      {
        name: 'max retries 1',
        argv: ['--max-retries', '1', 'profile'],
        routes: [{ path: '/profile', fixture: 'error-500', status: 500 }],
        requests: [{ path: '/profile' }, { path: '/profile' }],
        code: 9,
        stderr: ['Internal error.', 'req_500_1'],
      },
      { sleeps },
    );
    expect(sleeps).toHaveLength(1);
  });

  it('--max-retries 0 gives up on the first 429', async () => {
    await runCase(server, configHome(), {
      name: 'max retries 0',
      argv: ['profile', '--max-retries', '0'],
      routes: [{ path: '/profile', fixture: 'error-429', status: 429, headers: { 'Retry-After': '1' } }],
      requests: [{ path: '/profile' }],
      code: 8,
      stderr: ['req_rl_1'],
    });
  });

  it('a Retry-After too long to wait out is not retried: exit 8 at once, saying when to come back', async () => {
    const sleeps: number[] = [];
    await runCase(
      server,
      configHome(),
      {
        name: 'long retry-after',
        argv: ['profile'],
        routes: [{ path: '/profile', fixture: 'error-429', status: 429, headers: { 'Retry-After': '3600' } }],
        requests: [{ path: '/profile' }],
        code: 8,
        stderr: ['try again in 3600s', 'req_rl_1'],
      },
      { sleeps },
    );
    expect(sleeps).toEqual([]);
  });

  it('a 502 without a JSON body still reports the X-Request-ID header', async () => {
    await runCase(server, configHome(), {
      name: '502 text',
      argv: ['databases', 'list', '--max-retries', '2'],
      routes: [{ path: '/databases', raw: 'Bad Gateway', status: 502, requestId: 'req_edge_502' }],
      requests: [{ path: '/databases' }, { path: '/databases' }, { path: '/databases' }],
      code: 9,
      stderr: ['HTTP 502', 'req_edge_502'],
    });
  });

  it.each([400, 401, 403, 404, 409, 412])('HTTP %i is never retried', async (status) => {
    const sleeps: number[] = [];
    await runCase(
      server,
      configHome(),
      {
        name: `no retry ${status}`,
        argv: ['databases', 'list'],
        routes: [{ path: '/databases', fixture: `error-${status}`, status }],
        requests: [{ path: '/databases' }],
        code: statusRows.find((r) => r.status === status)!.exit,
      },
      { sleeps },
    );
    expect(sleeps).toEqual([]);
  });
});

describe('every read command maps a 404 to exit 5 with the request id', () => {
  const commands: Array<[string[], string, Record<string, string>?]> = [
    [['databases', 'list'], '/databases'],
    [['databases', 'get', 'db_x'], '/databases/db_x'],
    [['destinations', 'list'], '/destinations'],
    [['destinations', 'get', 'dst_x'], '/destinations/dst_x'],
    [['backups', 'list', 'db_x'], '/databases/db_x/backups'],
    [['backups', 'get', 'bj_x'], '/backups/bj_x'],
    [['evidence', 'list'], '/evidence'],
    [['evidence', 'get', 'bj_x'], '/evidence/bj_x'],
    [['restore', 'get', 'rj_x'], '/restores/rj_x'],
    [['recovery', 'summary', 'db_x'], '/databases/db_x/recovery/summary'],
    [
      ['recovery', 'candidate', 'db_x', '--incident-time', '2026-11-21T12:00:00Z'],
      '/databases/db_x/recovery/candidate',
      { incidentTime: '2026-11-21T12:00:00Z' },
    ],
    [['recovery', 'proof', 'rw_x'], '/recovery/windows/rw_x/proof'],
    [['tools', 'list'], '/mcp/tools'],
    [['tools', 'get', 'svc.backup.trigger'], '/mcp/tools'],
    [['profile'], '/profile'],
  ];
  it.each(commands)('svc %j', async (argv, path, query) => {
    await runCase(server, configHome(), {
      name: argv.join(' '),
      argv,
      routes: [{ path, fixture: 'error-404', status: 404 }, ...lookup(404, path).routes],
      requests: [{ path, query }, ...lookup(404, path).requests],
      code: 5,
      stdoutEmpty: true,
      stderr: ['Protected database not found.', 'request id: req_nf_1'],
    });
  });
});

describe('other failures', () => {
  it('no token configured is exit 3 and nothing is sent', async () => {
    const r = await run(server, configHome(), ['databases', 'list'], { env: { SVC_API_KEY: undefined } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/No API token is configured/);
    expect(r.stderr).toMatch(/svc auth login|SVC_API_KEY/);
    expect(server.exchanges).toEqual([]);
    expect(server.unhandled).toEqual([]);
  });

  it('no token under --json is the envelope with code unauthenticated', async () => {
    const r = await run(server, configHome(), ['databases', 'list', '--json'], { env: { SVC_API_KEY: undefined } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.code).toBe('unauthenticated');
    expect(server.exchanges).toEqual([]);
  });

  it('a 2xx body that is not JSON is exit 1 with the request id', async () => {
    await runCase(server, configHome(), {
      name: 'not json',
      argv: ['profile'],
      routes: [{ path: '/profile', raw: '<html>maintenance</html>', requestId: 'req_html_1' }],
      code: 1,
      stdoutEmpty: true,
      stderr: ['not JSON', 'req_html_1'],
    });
  });

  it('an unexpected 4xx status is exit 1, still with the request id', async () => {
    await runCase(server, configHome(), {
      name: '418',
      argv: ['profile'],
      routes: [{ path: '/profile', body: { error: { code: 'teapot', message: 'I am a teapot.', requestId: 'req_418' } }, status: 418 }],
      requests: [{ path: '/profile' }],
      code: 1,
      stderr: ['I am a teapot.', 'req_418'],
    });
  });

  it('a contract break under --json is the envelope naming the field and request id', async () => {
    const body = fixture('database-get');
    body.database.provider = 'oracle';
    const r = await runCase(server, configHome(), {
      name: 'contract json',
      argv: ['databases', 'get', 'db_orders', '--json'],
      routes: [{ path: '/databases/db_orders', body, requestId: 'req_contract_json' }],
      code: 1,
      stdoutEmpty: true,
    });
    const envelope = JSON.parse(r.stderr);
    expect(envelope.error.code).toBe('contract_mismatch');
    expect(envelope.error.requestId).toBe('req_contract_json');
    expect(envelope.error.message).toContain('database.provider');
  });
});
