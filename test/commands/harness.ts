import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, HttpResponse, type RequestHandler } from 'msw';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { LoopbackServer, type Exchange } from '../support/loopback-server.js';
import { runCli, type CliRun, type RunOptions } from '../support/run-cli.js';

/** Distinctive, so a leak anywhere in stdout or stderr is unmistakable. */
export const TOKEN = 'svc_test_0123456789abcdef';

/** RateLimit-* headers every authenticated response carries (api-v1.md 8). */
export const RATE_LIMIT_HEADERS = { 'RateLimit-Limit': '120', 'RateLimit-Remaining': '117', 'RateLimit-Reset': '42' };

export interface Route {
  method?: 'GET' | 'POST';
  /** Path below /api/v1, e.g. /databases/db_orders. */
  path: string;
  /** A fixture name under fixtures/api, or a body built by the test from one, or raw text. */
  fixture?: string;
  body?: unknown;
  raw?: string;
  status?: number;
  requestId?: string;
  headers?: Record<string, string>;
  /** Answer one request only; later ones fall through to the next route (for retries). */
  once?: boolean;
  /** Answer only when the query string carries these values (null: absent), for paging. */
  whenQuery?: Record<string, string | null>;
}

export interface ExpectedRequest {
  method?: 'GET' | 'POST';
  path: string;
  /** The exact query string parameters the request must carry (none when omitted). */
  query?: Record<string, string>;
}

type Match = string | RegExp;

export interface Case {
  name: string;
  argv: string[];
  routes?: Route[];
  /** Every request the server must have seen, in order; [] means nothing may be sent. Default: one plain GET per route. */
  requests?: ExpectedRequest[];
  code: number;
  stdout?: Match[];
  stdoutNot?: Match[];
  /** Exact parsed stdout (one JSON document). */
  stdoutJson?: unknown;
  stderr?: Match[];
  stderrNot?: Match[];
  stderrEmpty?: boolean;
  stdoutEmpty?: boolean;
  env?: Record<string, string | undefined>;
}

/** One loopback server per test file; handlers and records are cleared after each test. */
export function useServer(): { server: LoopbackServer; configHome: () => string } {
  const server = new LoopbackServer();
  let dir = '';
  beforeAll(async () => {
    await server.start();
    dir = mkdtempSync(join(tmpdir(), 'svc-commands-'));
  });
  afterEach(() => server.reset());
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { server, configHome: () => dir };
}

function queryMatches(url: URL, want: Record<string, string | null> | undefined): boolean {
  if (!want) return true;
  return Object.entries(want).every(([k, v]) => url.searchParams.get(k) === v);
}

export function handler(server: LoopbackServer, route: Route): RequestHandler {
  const method = route.method ?? 'GET';
  const make = method === 'POST' ? http.post : http.get;
  return make(
    `${server.baseUrl}/api/v1${route.path}`,
    ({ request }) => {
      if (!queryMatches(new URL(request.url), route.whenQuery)) return undefined;
      const init = (requestId: string | undefined) => ({
        status: route.status ?? 200,
        headers: { 'X-Request-ID': route.requestId ?? requestId ?? 'req_test_1', ...RATE_LIMIT_HEADERS, ...route.headers },
      });
      if (route.raw !== undefined) return new HttpResponse(route.raw, init(undefined));
      const body = route.body !== undefined ? route.body : fixture(route.fixture ?? '');
      // An error fixture's requestId is echoed in X-Request-ID, as the service does (api-v1.md 7).
      return HttpResponse.json(body as never, init((body as { error?: { requestId?: string } })?.error?.requestId));
    },
    { once: route.once === true },
  );
}

export function baseEnv(server: LoopbackServer, configHome: string): Record<string, string> {
  return { SVC_API_KEY: TOKEN, SVC_BASE_URL: server.baseUrl, XDG_CONFIG_HOME: configHome, HOME: configHome };
}

export async function run(server: LoopbackServer, configHome: string, argv: string[], opts: RunOptions = {}): Promise<CliRun> {
  return runCli(argv, { ...opts, env: { ...baseEnv(server, configHome), ...opts.env } });
}

/** Every request carried the bearer token, Accept and User-Agent of cli-contract 6. */
export function expectStandardHeaders(requests: Exchange[]): void {
  for (const r of requests) {
    expect(r.headers.get('authorization'), `${r.method} ${r.url.pathname}`).toBe(`Bearer ${TOKEN}`);
    expect(r.headers.get('accept')).toBe('application/json');
    expect(r.headers.get('user-agent')).toMatch(/^svc\/\d+\.\d+\.\d+\S* node\//);
  }
}

export function expectRequests(requests: Exchange[], expected: ExpectedRequest[]): void {
  expect(requests.map((r) => ({ method: r.method, path: r.url.pathname, query: Object.fromEntries(r.url.searchParams) }))).toEqual(
    expected.map((e) => ({ method: e.method ?? 'GET', path: `/api/v1${e.path}`, query: e.query ?? {} })),
  );
}

function expectMatches(text: string, matches: Match[] | undefined, present: boolean, what: string): void {
  for (const m of matches ?? []) {
    if (present) {
      if (typeof m === 'string') expect(text, what).toContain(m);
      else expect(text, what).toMatch(m);
    } else if (typeof m === 'string') expect(text, what).not.toContain(m);
    else expect(text, what).not.toMatch(m);
  }
}

/**
 * When a row does not list its requests: one GET per route, without a query string. Rows whose
 * routes page, retry or match a path pattern must list their requests.
 */
function defaultRequests(c: Case): ExpectedRequest[] {
  const routes = c.routes ?? [];
  if (routes.some((r) => r.whenQuery || r.once || r.path.includes(':'))) {
    throw new Error(`${c.name}: list the expected requests of a row with paging, retries or path patterns`);
  }
  return routes.map((r) => ({ method: r.method ?? 'GET', path: r.path }));
}

/** Runs one table row: serves its routes, runs argv, checks requests, stdout, stderr and exit code. */
export async function runCase(server: LoopbackServer, configHome: string, c: Case, opts: RunOptions = {}): Promise<CliRun> {
  server.use(...(c.routes ?? []).map((r) => handler(server, r)));
  const result = await run(server, configHome, c.argv, { ...opts, env: { ...opts.env, ...c.env } });
  const context = `argv: ${c.argv.join(' ')}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;

  expect(result.code, context).toBe(c.code);
  expect(server.unhandled, context).toEqual([]);
  expectRequests(server.exchanges, c.requests ?? defaultRequests(c));
  expectStandardHeaders(server.exchanges);

  expectMatches(result.stdout, c.stdout, true, 'stdout');
  expectMatches(result.stdout, c.stdoutNot, false, 'stdout');
  expectMatches(result.stderr, c.stderr, true, 'stderr');
  expectMatches(result.stderr, c.stderrNot, false, 'stderr');
  if (c.stdoutJson !== undefined) expect(JSON.parse(result.stdout), context).toStrictEqual(c.stdoutJson);
  if (c.stderrEmpty) expect(result.stderr, context).toBe('');
  if (c.stdoutEmpty) expect(result.stdout, context).toBe('');
  expectNoToken(result);
  return result;
}

export function expectNoToken(result: CliRun): void {
  expect(result.stdout).not.toContain(TOKEN);
  expect(result.stderr).not.toContain(TOKEN);
  // Also no recognisable fragment of it (e.g. a truncated or partly masked echo).
  expect(result.stdout + result.stderr).not.toContain('0123456789abcdef');
}

/** A deep copy of a fixture, for tests that add or break a field. */
export function fixtureCopy<T = any>(name: string): T {
  return structuredClone(fixture<T>(name));
}

/** The contract error's issue for one field path, e.g. `database.provider: Invalid option`. */
export function fieldIssue(path: string): RegExp {
  return new RegExp(`(?:contract: |; )${path.replace(/[.[\]]/g, '\\$&')}: \\S`);
}
