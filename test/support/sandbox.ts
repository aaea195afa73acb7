import { request } from 'undici';
import { ApiClient } from '../../src/api/client.js';
import { startSandbox, type RunningSandbox, type StartSandboxOptions } from '../../src/sandbox/index.js';

/** The sandbox clock in tests: starts at the fixtures' "now" and moves only when told. */
export class FakeClock {
  #ms: number;
  constructor(start = '2026-11-21T12:00:00Z') {
    this.#ms = Date.parse(start);
  }
  now = (): Date => new Date(this.#ms);
  advance(ms: number): void {
    this.#ms += ms;
  }
}

export interface TestSandbox extends RunningSandbox {
  clock: FakeClock;
  /** Sandbox bugs (responses that would fail the client's schemas); tests assert there were none. */
  internalErrors: string[];
}

export async function startTestSandbox(opts: StartSandboxOptions = {}): Promise<TestSandbox> {
  const clock = new FakeClock();
  const internalErrors: string[] = [];
  const sb = await startSandbox({ port: 0, now: clock.now, onInternalError: (m) => internalErrors.push(m), ...opts });
  return Object.assign(sb, { clock, internalErrors });
}

/** The project's own client, as src/session.ts builds it, with no retries unless asked. */
export function clientFor(
  sb: RunningSandbox,
  tokenName: string,
  opts: { maxRetries?: number; sleep?: (ms: number) => Promise<void>; now?: () => number; log?: (line: string) => void } = {},
): ApiClient {
  return new ApiClient({
    baseUrl: sb.baseUrl,
    token: sb.token(tokenName),
    timeoutMs: 5_000,
    maxRetries: opts.maxRetries ?? 0,
    sleep: opts.sleep ?? (async () => {}),
    random: () => 0,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.log ? { log: opts.log } : {}),
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface RawOptions {
  /** A token name of the data set, or a literal Authorization value with `authorization`. */
  token?: string | null;
  authorization?: string;
  headers?: Record<string, string>;
  body?: string | object;
  idempotencyKey?: string | null;
}

/** A plain undici request, for what the ApiClient would never send. */
export async function raw(sb: RunningSandbox, method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD', path: string, opts: RawOptions = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? 'full' : opts.token;
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  else if (token !== null) headers.authorization = `Bearer ${sb.token(token)}`;
  if (method === 'POST') {
    headers['content-type'] ??= 'application/json';
    if (opts.idempotencyKey !== null) headers['idempotency-key'] ??= opts.idempotencyKey ?? `key-${Math.random()}`;
  }
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const url = path.startsWith('http') ? path : `${sb.baseUrl}${path}`;
  const res = await request(url, { method, headers, body });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

export const api = (path: string) => `/api/v1${path}`;

export const restoreBody = (backupJobId: string, extra: Record<string, unknown> = {}) => ({
  backupJobId,
  targetRedactedDsn: 'postgresql://app@127.0.0.1:5432/orders_restored',
  mode: 'new_database',
  confirmDestructive: false,
  ...extra,
});
