import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { expectNoToken, expectStandardHeaders, fixtureCopy, run, runCase, TOKEN, useServer, type Case } from '../commands/harness.js';

const { server, configHome } = useServer();

const VERBOSE_LINE = (path: string, status: number, requestId = 'req_test_1') =>
  new RegExp(
    `^http GET ${path.replace(/[?/]/g, '\\$&')} ${status} \\d+ms( \\(retry \\d\\))? request-id=${requestId} ratelimit-limit=120 ratelimit-remaining=117 ratelimit-reset=42`,
    'm',
  );

describe('global options before or after the subcommand', () => {
  it.each([
    [['--json', 'databases', 'get', 'db_orders']],
    [['databases', '--json', 'get', 'db_orders']],
    [['databases', 'get', 'db_orders', '--json']],
    [['databases', 'get', '--json', 'db_orders']],
  ])('svc %j prints the JSON document', async (argv) => {
    await runCase(server, configHome(), {
      name: argv.join(' '),
      argv,
      routes: [{ path: '/databases/db_orders', fixture: 'database-get' }],
      requests: [{ path: '/databases/db_orders' }],
      code: 0,
      stdoutJson: fixture('database-get'),
      stderrEmpty: true,
    });
  });

  it('--base-url wins over SVC_BASE_URL, and a trailing slash is not doubled', async () => {
    await runCase(server, configHome(), {
      name: 'base url flag',
      argv: ['profile', '--base-url', `${server.baseUrl}/`],
      env: { SVC_BASE_URL: 'https://unused.invalid' },
      routes: [{ path: '/profile', fixture: 'profile' }],
      requests: [{ path: '/profile' }],
      code: 0,
      stdout: ['key_cli_01'],
    });
  });

  it('the base URL comes from the config file when neither flag nor env is set', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-config-'));
    try {
      mkdirSync(join(home, 'svc'), { recursive: true });
      writeFileSync(join(home, 'svc', 'config.json'), JSON.stringify({ baseUrl: server.baseUrl }));
      await runCase(server, home, {
        name: 'config file',
        argv: ['profile'],
        env: { SVC_BASE_URL: undefined },
        routes: [{ path: '/profile', fixture: 'profile' }],
        requests: [{ path: '/profile' }],
        code: 0,
        stdout: ['key_cli_01'],
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

const refusedBaseUrls: Array<[string, RegExp]> = [
  ['http://backup.example.com', /Refusing plain http:\/\/ to backup\.example\.com/],
  ['http://10.1.2.3:8080', /Refusing plain http:\/\/ to 10\.1\.2\.3/],
  ['http://localhost.example.com', /Refusing plain http:\/\//],
  ['http://127.0.0.1.nip.io', /Refusing plain http:\/\//],
  ['ftp://backup.example.com', /Unsupported base URL scheme/],
  ['backup.example.com', /not a valid URL/],
  ['https://backup.example.com/?tenant=acme', /query string/],
];

describe('base URL checks: exit 2, nothing sent', () => {
  it.each(refusedBaseUrls)('--base-url %s', async (url, message) => {
    await runCase(server, configHome(), {
      name: url,
      argv: ['--base-url', url, 'databases', 'list'],
      requests: [],
      code: 2,
      stdoutEmpty: true,
      stderr: [message],
    });
  });

  it('SVC_BASE_URL=http://<remote host> is refused the same way', async () => {
    await runCase(server, configHome(), {
      name: 'env http',
      argv: ['profile'],
      env: { SVC_BASE_URL: 'http://backup.example.com' },
      requests: [],
      code: 2,
      stderr: [/Refusing plain http:\/\/ to backup\.example\.com/, /https:\/\//],
    });
  });

  it('a base URL with credentials is refused without echoing them', async () => {
    const r = await runCase(server, configHome(), {
      name: 'userinfo',
      argv: ['--base-url', 'https://admin:hunter2secret@backup.example.com', 'profile'],
      requests: [],
      code: 2,
      stderr: [/must not contain credentials/],
    });
    expect(r.stderr).not.toContain('hunter2secret');
  });

  it('no base URL anywhere is exit 2 with how to set one', async () => {
    await runCase(server, configHome(), {
      name: 'no base url',
      argv: ['databases', 'list'],
      env: { SVC_BASE_URL: undefined },
      requests: [],
      code: 2,
      stderr: ['No service base URL is configured', '--base-url'],
    });
  });

  it('--json turns the refusal into the error envelope', async () => {
    const r = await runCase(server, configHome(), {
      name: 'json envelope usage',
      argv: ['--json', '--base-url', 'http://backup.example.com', 'databases', 'list'],
      requests: [],
      code: 2,
      stdoutEmpty: true,
    });
    const envelope = JSON.parse(r.stderr);
    expect(envelope.error.code).toBe('usage');
    expect(envelope.error.message).toMatch(/Refusing plain http/);
  });
});

const usageCases: Case[] = (
  [
    ['an unknown global flag', ['--frobnicate', 'profile'], /unknown option '--frobnicate'/],
    ['an unknown command, with a suggestion', ['databse', 'list'], /unknown command 'databse'[\s\S]*databases/],
    ['an unknown verb', ['databases', 'delete', 'db_orders'], /unknown command 'delete'/],
    ['--timeout abc', ['--timeout', 'abc', 'profile'], /--timeout must be a positive number of seconds, at most 3600, got "abc"/],
    ['--timeout in hex', ['--timeout', '0x10', 'profile'], /--timeout must be a positive number of seconds, at most 3600, got "0x10"/],
    ['--timeout over an hour', ['--timeout', '3601', 'profile'], /--timeout must be/],
    ['--timeout 0', ['profile', '--timeout', '0'], /--timeout/],
    ['--max-retries -1', ['profile', '--max-retries', '-1'], /--max-retries/],
    ['--max-retries abc', ['profile', '--max-retries', 'abc'], /--max-retries/],
    ['a token on the command line is not an option', ['profile', '--token', TOKEN], /unknown option '--token'/],
  ] as Array<[string, string[], RegExp]>
).map(([what, argv, message]) => ({ name: `${what}: exit 2, nothing sent`, argv, requests: [], code: 2, stdoutEmpty: true, stderr: [message] }));

describe('usage errors', () => {
  it.each(usageCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });

  it('SVC_TIMEOUT=abc is exit 2', async () => {
    await runCase(server, configHome(), {
      name: 'env timeout',
      argv: ['profile'],
      env: { SVC_TIMEOUT: 'abc' },
      requests: [],
      code: 2,
      // The message names where the bad value came from.
      stderr: [/^error: SVC_TIMEOUT must be a positive number of seconds, at most 3600, got "abc"\.$/m],
    });
  });

  // A fractional timeout used to reach AbortSignal.timeout() unrounded: exit 1 with a RangeError.
  it.each([
    ['--timeout 1.0005', ['--timeout', '1.0005', 'profile'], {}],
    ['SVC_TIMEOUT=2.0001', ['profile'], { SVC_TIMEOUT: '2.0001' }],
  ])('%s works: whole milliseconds', async (_name, argv, env) => {
    await runCase(server, configHome(), {
      name: 'fractional timeout',
      argv,
      env,
      routes: [{ path: '/profile', fixture: 'profile' }],
      code: 0,
      stdout: ['key_cli_01'],
    });
  });

  it('an unknown flag under --json is the usage envelope', async () => {
    const r = await runCase(server, configHome(), {
      name: 'json usage',
      argv: ['databases', 'list', '--json', '--sort', 'name'],
      requests: [],
      code: 2,
      stdoutEmpty: true,
    });
    const envelope = JSON.parse(r.stderr);
    expect(envelope.error.code).toBe('usage');
    expect(envelope.error.message).toContain('--sort');
  });

  it('--help prints the verb help on stdout, exit 0, nothing sent', async () => {
    await runCase(server, configHome(), {
      name: 'help',
      argv: ['databases', 'list', '--help'],
      requests: [],
      code: 0,
      stdout: ['--limit', '--cursor', '--all', 'svc databases list --all --json'],
    });
  });
});

describe('--quiet', () => {
  const page = fixtureCopy('destinations-list');
  page.nextCursor = 'cur_dst_2';

  it('silences hints but not the result', async () => {
    await runCase(server, configHome(), {
      name: 'quiet hint',
      argv: ['--quiet', 'destinations', 'list'],
      routes: [{ path: '/destinations', body: page }],
      code: 0,
      stdout: ['dst_eu_s3'],
      stderrEmpty: true,
    });
  });

  it('still prints errors', async () => {
    await runCase(server, configHome(), {
      name: 'quiet error',
      argv: ['--quiet', 'databases', 'get', 'db_gone'],
      // The 404 is followed by one list read (a database's name is accepted for its id): none is named so.
      routes: [
        { path: '/databases/db_gone', fixture: 'error-404', status: 404 },
        { path: '/databases', fixture: 'databases-page2' },
      ],
      code: 5,
      stderr: ['Protected database not found.', 'req_nf_1'],
    });
  });
});

describe('--verbose', () => {
  it('one line per exchange: method, path, status, duration, request id, RateLimit-*', async () => {
    const r = await runCase(server, configHome(), {
      name: 'verbose one',
      argv: ['--verbose', 'databases', 'get', 'db_orders'],
      routes: [{ path: '/databases/db_orders', fixture: 'database-get', requestId: 'req_v_1' }],
      code: 0,
      stdout: ['orders-prod'],
      stderr: [VERBOSE_LINE('/api/v1/databases/db_orders', 200, 'req_v_1')],
    });
    expect(r.stderr.split('\n').filter((l) => l.startsWith('http '))).toHaveLength(1);
    expect(r.stdout).not.toMatch(/^http /m);
  });

  it('with --all: one line per page, query included', async () => {
    const r = await runCase(server, configHome(), {
      name: 'verbose pages',
      argv: ['databases', 'list', '--all', '--json', '--verbose'],
      routes: [
        { path: '/databases', fixture: 'databases-page1', whenQuery: { cursor: null } },
        { path: '/databases', fixture: 'databases-page2', whenQuery: { cursor: 'cur_db_2' } },
      ],
      requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
      code: 0,
    });
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(VERBOSE_LINE('/api/v1/databases', 200));
    expect(lines[1]).toMatch(VERBOSE_LINE('/api/v1/databases?cursor=cur_db_2', 200));
    expect(JSON.parse(r.stdout).databases).toHaveLength(3);
  });

  it('logs each retry and the Retry-After it got', async () => {
    const r = await runCase(server, configHome(), {
      name: 'verbose retries',
      argv: ['profile', '--verbose', '--max-retries', '2'],
      routes: [{ path: '/profile', fixture: 'error-429', status: 429, headers: { 'Retry-After': '1' } }],
      requests: [{ path: '/profile' }, { path: '/profile' }, { path: '/profile' }],
      code: 8,
    });
    const httpLines = r.stderr.split('\n').filter((l) => l.startsWith('http '));
    expect(httpLines).toHaveLength(3);
    expect(httpLines[0]).toMatch(VERBOSE_LINE('/api/v1/profile', 429, 'req_rl_1'));
    expect(httpLines[1]).toContain('(retry 1)');
    expect(httpLines[2]).toContain('(retry 2)');
    for (const line of httpLines) expect(line).toContain('retry-after=1');
  });

  it('SVC_DEBUG=1 turns it on', async () => {
    await runCase(server, configHome(), {
      name: 'svc debug',
      argv: ['profile'],
      env: { SVC_DEBUG: '1' },
      routes: [{ path: '/profile', fixture: 'profile' }],
      code: 0,
      stderr: [VERBOSE_LINE('/api/v1/profile', 200)],
    });
  });

  it('with --quiet: exchange lines stay, hints go', async () => {
    const r = await runCase(server, configHome(), {
      name: 'verbose quiet',
      argv: ['databases', 'list', '--verbose', '--quiet'],
      routes: [{ path: '/databases', fixture: 'databases-page1' }],
      code: 0,
      stderr: [VERBOSE_LINE('/api/v1/databases', 200)],
      stderrNot: ['More results'],
    });
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('without --verbose there are no exchange lines', async () => {
    await runCase(server, configHome(), {
      name: 'not verbose',
      argv: ['profile'],
      routes: [{ path: '/profile', fixture: 'profile' }],
      code: 0,
      stderrEmpty: true,
    });
  });
});

describe('the API token never reaches stdout or stderr', () => {
  const revokedEcho = fixtureCopy('error-401');
  revokedEcho.error.message = `Token ${TOKEN} was revoked.`;

  const batch: Case[] = [
    { name: 'profile', argv: ['profile'], routes: [{ path: '/profile', fixture: 'profile' }], code: 0 },
    { name: 'profile json', argv: ['profile', '--json'], routes: [{ path: '/profile', fixture: 'profile' }], code: 0 },
    {
      name: 'databases --all',
      argv: ['databases', 'list', '--all'],
      routes: [
        { path: '/databases', fixture: 'databases-page1', whenQuery: { cursor: null } },
        { path: '/databases', fixture: 'databases-page2', whenQuery: { cursor: 'cur_db_2' } },
      ],
      requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
      code: 0,
    },
    {
      name: 'destinations get',
      argv: ['destinations', 'get', 'dst_eu_s3'],
      routes: [{ path: '/destinations/dst_eu_s3', fixture: 'destination-get' }],
      code: 0,
    },
    { name: 'backups get', argv: ['backups', 'get', 'bj_0007'], routes: [{ path: '/backups/bj_0007', fixture: 'backup-get-completed' }], code: 0 },
    { name: 'evidence get', argv: ['evidence', 'get', 'bj_0007'], routes: [{ path: '/evidence/bj_0007', fixture: 'evidence-get' }], code: 0 },
    { name: 'restore get', argv: ['restore', 'get', 'rj_0001'], routes: [{ path: '/restores/rj_0001', fixture: 'restore-get' }], code: 0 },
    {
      name: 'recovery proof',
      argv: ['recovery', 'proof', 'rw_0003'],
      routes: [{ path: '/recovery/windows/rw_0003/proof', fixture: 'recovery-proof' }],
      code: 0,
    },
    { name: 'tools list', argv: ['tools', 'list'], routes: [{ path: '/mcp/tools', fixture: 'tools' }], code: 0 },
    { name: '401', argv: ['profile'], routes: [{ path: '/profile', fixture: 'error-401', status: 401 }], code: 3 },
    { name: '401 echoing the token', argv: ['profile'], routes: [{ path: '/profile', body: revokedEcho, status: 401 }], code: 3 },
    { name: '401 echoing the token, json', argv: ['profile', '--json'], routes: [{ path: '/profile', body: revokedEcho, status: 401 }], code: 3 },
    { name: '403 json', argv: ['evidence', 'list', '--json'], routes: [{ path: '/evidence', fixture: 'error-403', status: 403 }], code: 4 },
    {
      name: '429',
      argv: ['destinations', 'list'],
      routes: [{ path: '/destinations', fixture: 'error-429', status: 429, headers: { 'Retry-After': '1' } }],
      requests: Array.from({ length: 5 }, () => ({ path: '/destinations' })),
      code: 8,
    },
    {
      name: '500',
      argv: ['tools', 'get', 'x'],
      routes: [{ path: '/mcp/tools', fixture: 'error-500', status: 500 }],
      requests: Array.from({ length: 5 }, () => ({ path: '/mcp/tools' })),
      code: 9,
    },
    {
      name: 'contract break',
      argv: ['restore', 'get', 'rj_0001'],
      routes: [{ path: '/restores/rj_0001', body: { restoreJob: { id: 'rj_0001' } } }],
      code: 1,
    },
    { name: 'usage error', argv: ['databases', 'list', '--limit', '0'], code: 2 },
  ];

  it('across a batch of commands run with --verbose', async () => {
    let requests = 0;
    for (const c of batch) {
      const r = await runCase(server, configHome(), { ...c, argv: [...c.argv, '--verbose'] });
      expectNoToken(r);
      expect(r.stderr).not.toMatch(/bearer|authorization/i);
      requests += server.exchanges.length;
      // Every request did carry it, to the configured origin only.
      expectStandardHeaders(server.exchanges);
      for (const req of server.exchanges) expect(req.url.origin).toBe(server.baseUrl);
      server.reset();
    }
    expect(requests).toBeGreaterThanOrEqual(batch.length);
  });

  it('the echoed token is redacted, not just hidden', async () => {
    const r = await runCase(server, configHome(), {
      name: 'redacted',
      argv: ['profile'],
      routes: [{ path: '/profile', body: revokedEcho, status: 401 }],
      code: 3,
      stderr: ['Token [redacted] was revoked.', 'req_unauth_1'],
    });
    expectNoToken(r);
  });
});
