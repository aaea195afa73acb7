import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { runCli, type CliRun, type RunOptions } from '../support/run-cli.js';
import { closedPort, delayed, drop, hang, json, LoopbackServer, stall } from '../support/loopback-server.js';

const TOKEN = 'svc_test_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const PROFILE = '/api/v1/profile';

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

/** Runs svc against the loopback server with the token in SVC_API_KEY; sleeps are recorded, not waited. */
async function svc(args: string[], sleeps: number[] = [], opts: RunOptions = {}): Promise<CliRun> {
  const result = await runCli([...args, '--base-url', server.baseUrl], {
    sleeps,
    ...opts,
    env: { SVC_API_KEY: TOKEN, XDG_CONFIG_HOME: configHome, HOME: configHome, ...opts.env },
  });
  expect(result.stdout + result.stderr, 'the token must never be printed').not.toContain(TOKEN);
  return result;
}

const ok = () => json(200, fixture('profile'), { 'x-request-id': 'req_ok' });
const err = (status: number, name: string, headers: Record<string, string> = {}) => json(status, fixture(name), headers);

describe('Retry-After', () => {
  it.each([
    { status: 429, body: 'error-429', seconds: 2 },
    { status: 503, body: 'error-500', seconds: 3 },
  ])('$status with Retry-After: $seconds waits at least that long, plus bounded jitter, then succeeds', async ({ status, body, seconds }) => {
    server.script(err(status, body, { 'retry-after': String(seconds) }), ok());
    const sleeps: number[] = [];

    const r = await svc(['profile', '--json'], sleeps);

    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(fixture('profile'));
    expect(server.exchanges).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    // At least Retry-After; the jitter (runCli's random() is 0.5) is added on top and stays under 1 s.
    expect(sleeps[0]).toBeGreaterThan(seconds * 1000);
    expect(sleeps[0]).toBeLessThan(seconds * 1000 + 1000);
  });

  it('honours Retry-After on every retry, not only the first', async () => {
    server.script(
      err(429, 'error-429', { 'retry-after': '1' }),
      err(429, 'error-429', { 'retry-after': '5' }),
      err(503, 'error-500', { 'retry-after': '2' }),
      ok(),
    );
    const sleeps: number[] = [];

    const r = await svc(['profile'], sleeps);

    expect(r.code).toBe(0);
    expect(sleeps).toHaveLength(3);
    [1, 5, 2].forEach((seconds, i) => {
      expect(sleeps[i]).toBeGreaterThanOrEqual(seconds * 1000);
      expect(sleeps[i]).toBeLessThan(seconds * 1000 + 1000);
    });
  });

  it('does not wait out an unreasonably long Retry-After: exits 8 at once and says when to retry', async () => {
    server.script(err(429, 'error-429', { 'retry-after': '3600' }));
    const sleeps: number[] = [];

    const r = await svc(['profile'], sleeps);

    expect(r.code).toBe(8);
    expect(server.exchanges).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(r.stderr).toContain('3600s');
    expect(r.stderr).toContain('req_rl_1');
  });
});

describe('each retry is said on stderr (cli-contract 4)', () => {
  it('429s: "Rate limited; retrying in 2s (1/4)", one line per retry, with the wait it takes', async () => {
    server.script(err(429, 'error-429', { 'retry-after': '2' }), err(429, 'error-429', { 'retry-after': '10' }), ok());
    const r = await svc(['profile', '--json'], []);
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual(['Rate limited; retrying in 3s (1/4)', 'Rate limited; retrying in 11s (2/4)']);
  });

  it('a refused connection: the reason and the wait', async () => {
    server.script(drop(), ok());
    const r = await svc(['profile', '--json', '--max-retries', '2'], []);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Could not reach the service at 127\.0\.0\.1:\d+: ECONNRESET; retrying in \d+(\.\d)?s \(1\/2\)\n$/);
  });

  it('--quiet says nothing of them', async () => {
    server.script(err(429, 'error-429', { 'retry-after': '1' }), ok());
    const r = await svc(['profile', '--json', '--quiet'], []);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('retryable statuses', () => {
  it.each([500, 502, 503, 504])('%i is retried, then the success is printed (exit 0)', async (status) => {
    server.script(err(status, 'error-500'), ok());
    const sleeps: number[] = [];

    const r = await svc(['profile', '--json'], sleeps);

    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(fixture('profile'));
    // The one retry is said, and nothing else.
    expect(r.stderr).toMatch(new RegExp(`^The service answered HTTP ${status}; retrying in \\d+(\\.\\d)?s \\(1/4\\)\\n$`));
    expect(server.exchanges.map((e) => e.path)).toEqual([PROFILE, PROFILE]);
    expect(sleeps).toHaveLength(1);
  });

  it('backs off exponentially with full jitter when there is no Retry-After', async () => {
    server.script(err(500, 'error-500'), err(502, 'error-500'), err(503, 'error-500'), err(504, 'error-500'), ok());
    const sleeps: number[] = [];

    const r = await svc(['profile'], sleeps);

    expect(r.code).toBe(0);
    expect(r.stdout).toContain('key_cli_01');
    expect(server.exchanges).toHaveLength(5);
    expect(sleeps).toHaveLength(4);
    // Full jitter: each delay lies in [0, 500 ms * 2^attempt); random() = 0.5 puts it at the middle.
    sleeps.forEach((ms, attempt) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(500 * 2 ** attempt);
    });
    expect(sleeps[3]).toBeGreaterThan(sleeps[0]!);
  });
});

describe('retries exhausted', () => {
  it('429 on every attempt: 1 + 4 attempts by default, then exit 8 with the request id', async () => {
    server.otherwise(() => err(429, 'error-429', { 'retry-after': '1' }));
    const sleeps: number[] = [];

    const r = await svc(['profile'], sleeps);

    expect(r.code).toBe(8);
    expect(server.exchanges).toHaveLength(5);
    expect(sleeps).toHaveLength(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Rate limit exceeded.');
    expect(r.stderr).toContain('req_rl_1');
  });

  it.each([500, 502, 503, 504])('%i on every attempt ends in exit 9', async (status) => {
    server.otherwise(() => err(status, 'error-500'));

    const r = await svc(['profile', '--json'], []);

    expect(r.code).toBe(9);
    expect(server.exchanges).toHaveLength(5);
    expect(r.stdout).toBe('');
    // Four retries said, then the --json error envelope as the last line.
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ error: { code: 'internal_error', requestId: 'req_500_1', status } });
  });

  it('--max-retries 2 makes three attempts', async () => {
    server.otherwise(() => err(503, 'error-500'));
    const sleeps: number[] = [];

    const r = await svc(['profile', '--max-retries', '2'], sleeps);

    expect(r.code).toBe(9);
    expect(server.exchanges).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it.each([
    { status: 429, body: 'error-429', code: 8 },
    { status: 503, body: 'error-500', code: 9 },
  ])('--max-retries 0 means exactly one attempt ($status -> exit $code)', async ({ status, body, code }) => {
    server.otherwise(() => err(status, body, { 'retry-after': '1' }));
    const sleeps: number[] = [];

    const r = await svc(['--max-retries', '0', 'profile'], sleeps);

    expect(r.code).toBe(code);
    expect(server.exchanges).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe('network failures', () => {
  it('a connection closed without an answer is retried, then succeeds', async () => {
    server.script(drop(), drop(), ok());
    const sleeps: number[] = [];

    const r = await svc(['profile', '--json'], sleeps);

    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(fixture('profile'));
    expect(server.exchanges).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('a connection closed on every attempt ends in exit 9', async () => {
    server.otherwise(() => drop());

    const r = await svc(['profile', '--max-retries', '3'], []);

    expect(r.code).toBe(9);
    expect(server.exchanges).toHaveLength(4);
    expect(r.stderr).toContain('Could not reach the service at 127.0.0.1');
  });

  it('a refused connection is retried, then exit 9', async () => {
    const port = await closedPort();
    const sleeps: number[] = [];

    const r = await runCli(['profile', '--verbose', '--max-retries', '2', '--base-url', `http://127.0.0.1:${port}`], {
      sleeps,
      env: { SVC_API_KEY: TOKEN, XDG_CONFIG_HOME: configHome, HOME: configHome },
    });

    expect(r.code).toBe(9);
    expect(sleeps).toHaveLength(2);
    const attempts = r.stderr.split('\n').filter((l) => l.startsWith(`http GET ${PROFILE} failed`));
    expect(attempts).toHaveLength(3);
    expect(attempts.every((l) => l.includes('ECONNREFUSED'))).toBe(true);
    expect(r.stderr).toContain(`Could not reach the service at 127.0.0.1:${port}: ECONNREFUSED`);
    expect(r.stderr).not.toContain(TOKEN);
  });
});

describe('timeouts', () => {
  it('a server that never answers times out, is retried, then exit 9', async () => {
    server.otherwise(() => hang());
    const sleeps: number[] = [];

    const r = await svc(['profile', '--timeout', '0.2', '--max-retries', '1'], sleeps);

    expect(r.code).toBe(9);
    expect(server.exchanges).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    expect(r.stderr).toContain('timed out after 0.2s');
  });

  it('a slow answer is abandoned at the timeout and the retry succeeds', async () => {
    server.script(delayed(5_000, ok()), ok());

    const r = await svc(['profile', '--json', '--timeout', '0.2'], []);

    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(fixture('profile'));
    expect(server.exchanges).toHaveLength(2);
  });

  it('the timeout also covers a body that stops half way', async () => {
    server.script(stall(200, '{"profile":{"apiKeyId":'), ok());

    const r = await svc(['profile', '--json', '--timeout', '0.2'], []);

    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(fixture('profile'));
    expect(server.exchanges).toHaveLength(2);
  });

  it('SVC_TIMEOUT is the per-request timeout when --timeout is absent', async () => {
    server.otherwise(() => hang());

    const r = await svc(['profile', '--max-retries', '0'], [], { env: { SVC_TIMEOUT: '0.2' } });

    expect(r.code).toBe(9);
    expect(server.exchanges).toHaveLength(1);
    expect(r.stderr).toContain('timed out after 0.2s');
  });
});

describe('other 4xx are never retried', () => {
  it.each([
    { status: 400, body: 'error-400', code: 2 },
    { status: 401, body: 'error-401', code: 3 },
    { status: 403, body: 'error-403', code: 4 },
    { status: 404, body: 'error-404', code: 5 },
    { status: 409, body: 'error-409', code: 6 },
    { status: 412, body: 'error-412', code: 7 },
  ])('$status: exactly one request, exit $code, request id shown', async ({ status, body, code }) => {
    server.otherwise(() => err(status, body, { 'retry-after': '1' }));
    const sleeps: number[] = [];

    const r = await svc(['databases', 'get', 'db_orders'], sleeps);

    expect(r.code).toBe(code);
    // Sent once; a 404 on a database id is followed by one read of the list, for a database of that name (cli-contract 4, v5).
    const lookup = status === 404 ? ['GET /api/v1/databases'] : [];
    expect(server.exchanges.map((e) => `${e.method} ${e.path}`)).toEqual(['GET /api/v1/databases/db_orders', ...lookup]);
    expect(sleeps).toEqual([]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(fixture(body).error.requestId);
  });

  it('403 names the required scope and the next action', async () => {
    server.otherwise(() => err(403, 'error-403'));

    const r = await svc(['evidence', 'list'], []);

    expect(r.code).toBe(4);
    expect(server.exchanges).toHaveLength(1);
    expect(r.stderr).toContain('evidence:read');
    expect(r.stderr).toContain('Settings > API tokens');
  });
});
