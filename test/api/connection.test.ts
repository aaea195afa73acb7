import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { runCli, type CliRun } from '../support/run-cli.js';
import { drop, json, LoopbackServer, redirect } from '../support/loopback-server.js';

const TOKEN = 'svc_test_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

let server: LoopbackServer;
let configHome: string;

beforeEach(async () => {
  server = await new LoopbackServer().start();
  configHome = mkdtempSync(join(tmpdir(), 'svc-transport-'));
});

afterEach(async () => {
  await server.stop();
  rmSync(configHome, { recursive: true, force: true });
});

async function svc(args: string[], baseUrl = server.baseUrl, sleeps: number[] = []): Promise<CliRun> {
  const result = await runCli([...args, '--base-url', baseUrl], {
    sleeps,
    env: { SVC_API_KEY: TOKEN, XDG_CONFIG_HOME: configHome, HOME: configHome },
  });
  expect(result.stdout + result.stderr, 'the token must never be printed').not.toContain(TOKEN);
  return result;
}

/** Three pages: the fixtures' two, with a third spliced in after the second. */
function threePages() {
  const page1 = fixture('databases-page1');
  const page2 = { ...fixture('databases-page2'), nextCursor: 'cur_db_3' };
  const page3 = {
    databases: [{ ...fixture('databases-page2').databases[0], id: 'db_reports', name: 'reports' }],
    nextCursor: null,
  };
  return { page1, page2, page3 };
}

describe('keep-alive', () => {
  it('an --all walk over three pages sends every request on one connection', async () => {
    const { page1, page2, page3 } = threePages();
    server.otherwise((ex) => {
      const cursor = ex.url.searchParams.get('cursor');
      return json(200, cursor === 'cur_db_3' ? page3 : cursor === 'cur_db_2' ? page2 : page1);
    });

    const r = await svc(['databases', 'list', '--all', '--json']);

    expect(r.code).toBe(0);
    expect(server.exchanges.map((e) => e.path)).toEqual(['/api/v1/databases', '/api/v1/databases?cursor=cur_db_2', '/api/v1/databases?cursor=cur_db_3']);
    expect(server.connections).toBe(1);
    expect(new Set(server.exchanges.map((e) => e.connection))).toEqual(new Set([1]));
    expect(new Set(server.exchanges.map((e) => e.remotePort)).size).toBe(1);
    const body = JSON.parse(r.stdout);
    expect(body.databases.map((d: { id: string }) => d.id)).toEqual(['db_orders', 'db_billing', 'db_analytics', 'db_reports']);
    expect(body).not.toHaveProperty('nextCursor');
  });

  it('a page retried after a 503 stays on the same connection', async () => {
    const { page1, page2, page3 } = threePages();
    server.script(json(200, page1), json(503, fixture('error-500')), json(200, page2), json(200, page3));

    const r = await svc(['databases', 'list', '--all', '--json']);

    expect(r.code).toBe(0);
    expect(server.exchanges.map((e) => e.url.searchParams.get('cursor'))).toEqual([null, 'cur_db_2', 'cur_db_2', 'cur_db_3']);
    expect(server.connections).toBe(1);
  });

  it('after the server drops a connection, the retry opens a new one (the walk still completes)', async () => {
    const { page1, page2, page3 } = threePages();
    server.script(json(200, page1), drop(), json(200, page2), json(200, page3));

    const r = await svc(['databases', 'list', '--all', '--json']);

    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).databases).toHaveLength(4);
    expect(server.exchanges.map((e) => e.connection)).toEqual([1, 1, 2, 2]);
  });
});

describe('redirects', () => {
  let elsewhere: LoopbackServer;

  beforeEach(async () => {
    elsewhere = await new LoopbackServer().start();
    elsewhere.otherwise(() => json(200, fixture('profile')));
  });

  afterEach(async () => {
    await elsewhere.stop();
  });

  it.each([301, 302, 303, 307, 308])('%i to another origin is not followed: the token never reaches it', async (status) => {
    server.otherwise(() => redirect(status, `${elsewhere.baseUrl}/api/v1/profile`));
    const sleeps: number[] = [];

    const r = await svc(['profile', '--json'], server.baseUrl, sleeps);

    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'redirect_refused', status } });
    expect(elsewhere.exchanges).toEqual([]);
    expect(elsewhere.connections).toBe(0);
    expect(server.exchanges).toHaveLength(1);
    expect(server.exchanges[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(sleeps).toEqual([]);
  });

  it('a same-origin redirect is not followed either', async () => {
    server.script(redirect(307, '/api/v1/profile-moved'));

    const r = await svc(['profile']);

    expect(r.code).toBe(1);
    expect(server.exchanges.map((e) => e.path)).toEqual(['/api/v1/profile']);
    expect(r.stderr).toContain('HTTP 307');
  });
});

describe('request headers', () => {
  it('every attempt carries Authorization, Accept and User-Agent svc/<version> node/<version>', async () => {
    server.script(json(503, fixture('error-500')), json(200, fixture('profile')));

    const r = await svc(['profile']);

    expect(r.code).toBe(0);
    expect(server.exchanges).toHaveLength(2);
    for (const { headers } of server.exchanges) {
      expect(headers.get('user-agent')).toBe(`svc/${PACKAGE_VERSION} node/${process.versions.node}`);
      expect(headers.get('user-agent')).toMatch(/^svc\/\d+\.\d+\.\d+\S* node\/\d+\.\d+\.\d+$/);
      expect(headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
      expect(headers.get('accept')).toBe('application/json');
      // GETs carry no body, so no idempotency key either.
      expect(headers.get('idempotency-key')).toBeNull();
    }
  });
});

describe('--verbose', () => {
  it('prints one line per exchange, retries included, with rate-limit headers and request id, never the token', async () => {
    const rateLimit = (remaining: string) => ({
      'ratelimit-limit': '100',
      'ratelimit-remaining': remaining,
      'ratelimit-reset': '30',
    });
    server.script(
      drop(),
      json(429, fixture('error-429'), { ...rateLimit('0'), 'retry-after': '1', 'x-request-id': 'req_rl_1' }),
      json(200, fixture('profile'), { ...rateLimit('99'), 'x-request-id': 'req_ok_2' }),
    );

    const r = await svc(['profile', '--verbose']);

    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('http '));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^http GET \/api\/v1\/profile failed: \S+ after \d+ms$/);
    expect(lines[1]).toMatch(/^http GET \/api\/v1\/profile 429 \d+ms \(retry 1\) request-id=req_rl_1 /);
    expect(lines[1]).toContain('ratelimit-limit=100 ratelimit-remaining=0 ratelimit-reset=30 retry-after=1');
    expect(lines[2]).toMatch(/^http GET \/api\/v1\/profile 200 \d+ms \(retry 2\) request-id=req_ok_2 /);
    expect(lines[2]).toContain('ratelimit-remaining=99');
    expect(r.stderr).not.toMatch(/bearer|authorization/i);
    // Results stay on stdout, undisturbed by the exchange log.
    expect(r.stdout).toContain('key_cli_01');
    expect(r.stdout).not.toContain('http GET');
  });

  it('SVC_DEBUG=1 turns it on too; without either, stderr stays silent', async () => {
    server.otherwise(() => json(200, fixture('profile')));

    const quiet = await svc(['profile']);
    const debug = await runCli(['profile', '--base-url', server.baseUrl], {
      env: { SVC_API_KEY: TOKEN, SVC_DEBUG: '1', XDG_CONFIG_HOME: configHome, HOME: configHome },
    });

    expect(quiet.stderr).toBe('');
    expect(debug.code).toBe(0);
    expect(debug.stderr).toMatch(/^http GET \/api\/v1\/profile 200 \d+ms/m);
    expect(debug.stderr).not.toContain(TOKEN);
  });
});
