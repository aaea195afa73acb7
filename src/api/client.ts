import type { Dispatcher } from 'undici';
import { loadUndici, networkErrorCode, type UndiciAgent, type UndiciTransport } from './undici.js';
import type { z } from 'zod';
import { ApiError, ConnectionError, CliError, ContractError, InterruptedError, TimeoutError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { USER_AGENT } from '../version.js';
import { parseResponse } from './contract.js';
import { errorHint } from './error-hints.js';
import { isRetryableStatus, MAX_RETRY_AFTER_MS, parseRetryAfterMs, retryDelayMs } from './retry-policy.js';
import { errorBody } from './schemas/errors.js';

export interface Operation<S extends z.ZodType = z.ZodType> {
  /** operationId of api-v1.md, e.g. listDatabases. */
  name: string;
  method: 'GET' | 'POST';
  /** Path below /api/v1, with ids already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Mutations carry one key for the whole logical request: every retry reuses it. */
  idempotencyKey?: string;
  response: S;
}

export interface ApiResult<T> {
  data: T;
  status: number;
  requestId: string | undefined;
}

export interface ClientConfig {
  baseUrl: string;
  token: string;
  timeoutMs: number;
  maxRetries: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** One line per HTTP exchange for --verbose; never handed a secret. */
  log?: (line: string) => void;
  /** Aborted on SIGINT. */
  signal?: AbortSignal;
}

type Attempt =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; text: string }
  | { kind: 'network'; error: unknown }
  | { kind: 'timeout' };

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}


/** The one HTTP client: auth, timeouts, retries with Retry-After, idempotency keys, request ids, validation. */
export class ApiClient {
  readonly #config: ClientConfig;
  readonly #origin: string;
  #undici: Promise<{ agent: UndiciAgent; request: UndiciTransport['request'] }> | undefined;

  constructor(config: ClientConfig) {
    this.#config = config;
    this.#origin = config.baseUrl;
  }

  /**
   * undici is loaded on the first request (src/api/undici.ts). One keep-alive connection for the whole run: an --all walk reuses the same socket (cli-contract 6).
   * The client's requests are sequential, and with more than one connection allowed undici's pool
   * opens a second socket while the first is still settling after a response.
   */
  #transport(): Promise<{ agent: UndiciAgent; request: UndiciTransport['request'] }> {
    this.#undici ??= loadUndici().then(({ Agent, request }) => ({
      agent: new Agent({ keepAliveTimeout: 30_000, connections: 1 }),
      request,
    }));
    return this.#undici;
  }

  async close(): Promise<void> {
    const transport = await this.#undici?.catch(() => undefined);
    await transport?.agent.close();
  }

  async send<S extends z.ZodType>(op: Operation<S>): Promise<ApiResult<z.infer<S>>> {
    const url = this.#url(op);
    const displayPath = url.slice(this.#origin.length);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#config.token}`,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    let body: string | undefined;
    if (op.method === 'POST') {
      headers['content-type'] = 'application/json';
      // node:crypto loads only here: a read-only run never needs it.
      headers['idempotency-key'] = op.idempotencyKey ?? (await import('node:crypto')).randomUUID();
      body = JSON.stringify(op.body ?? {});
    }

    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      const outcome = await this.#attempt(url, op.method, headers, body);
      const ms = Math.round(performance.now() - started);
      this.#logExchange(op.method, displayPath, outcome, ms, attempt);

      if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) {
        const requestId = header(outcome.headers, 'x-request-id');
        const json = safeJson(outcome.text);
        if (json === undefined) {
          throw new ContractError(`The response of ${op.method} ${displayPath} is not JSON.`, requestId);
        }
        const data = parseResponse(op.response, json, `${op.name} (${op.method} ${displayPath})`, requestId);
        return { data, status: outcome.status, requestId };
      }

      const retryAfterMs =
        outcome.kind === 'response' ? parseRetryAfterMs(header(outcome.headers, 'retry-after'), Date.now()) : undefined;
      const retryable =
        outcome.kind !== 'response' ||
        (isRetryableStatus(outcome.status) && (retryAfterMs === undefined || retryAfterMs <= MAX_RETRY_AFTER_MS));
      if (!retryable || attempt >= this.#config.maxRetries) {
        throw this.#failure(op, displayPath, outcome, retryAfterMs);
      }
      await this.#config.sleep(retryDelayMs(attempt, retryAfterMs, this.#config.random), this.#config.signal);
      if (this.#config.signal?.aborted) throw new InterruptedError();
    }
  }

  #url(op: Operation): string {
    const url = new URL(`${this.#origin}/api/v1${op.path}`);
    for (const [key, value] of Object.entries(op.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.href;
  }

  async #attempt(url: string, method: string, headers: Record<string, string>, body: string | undefined): Promise<Attempt> {
    const timeout = AbortSignal.timeout(this.#config.timeoutMs);
    const signal = this.#config.signal ? AbortSignal.any([timeout, this.#config.signal]) : timeout;
    // Outside the try: failing to load the transport is a bug to report, not a network error to retry.
    const { agent, request } = await this.#transport();
    try {
      const res = await request(url, { method: method as Dispatcher.HttpMethod, headers, body, signal, dispatcher: agent });
      const text = await res.body.text();
      return { kind: 'response', status: res.statusCode, headers: res.headers, text };
    } catch (error) {
      if (this.#config.signal?.aborted) throw new InterruptedError();
      if (timeout.aborted) return { kind: 'timeout' };
      return { kind: 'network', error };
    }
  }

  #logExchange(method: string, path: string, outcome: Attempt, ms: number, attempt: number): void {
    const log = this.#config.log;
    if (!log) return;
    const retry = attempt > 0 ? ` (retry ${attempt})` : '';
    if (outcome.kind === 'timeout') return log(`http ${method} ${path} timed out after ${ms}ms${retry}`);
    if (outcome.kind === 'network') return log(`http ${method} ${path} failed: ${networkErrorCode(outcome.error)} after ${ms}ms${retry}`);
    const h = outcome.headers;
    const parts = [`http ${method} ${path} ${outcome.status} ${ms}ms${retry}`];
    const requestId = header(h, 'x-request-id');
    if (requestId) parts.push(`request-id=${requestId}`);
    for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']) {
      const value = header(h, name);
      if (value !== undefined) parts.push(`${name}=${value}`);
    }
    log(parts.join(' '));
  }

  #failure(op: Operation, path: string, outcome: Attempt, retryAfterMs: number | undefined): CliError {
    const host = new URL(this.#origin).host;
    if (outcome.kind === 'timeout') {
      return new TimeoutError(`${op.method} ${path} timed out after ${this.#config.timeoutMs / 1000}s (${host}).`);
    }
    if (outcome.kind === 'network') {
      return new ConnectionError(
        `Could not reach the service at ${host}: ${networkErrorCode(outcome.error)}.`,
        'Check the base URL and your network, then try again.',
      );
    }
    const parsed = errorBody.safeParse(safeJson(outcome.text));
    const err = parsed.success ? parsed.data.error : undefined;
    const requestId = err?.requestId ?? header(outcome.headers, 'x-request-id');
    const status = outcome.status;
    if (status >= 300 && status < 400) {
      return new CliError(
        ExitCode.unexpected,
        `The service answered ${op.method} ${path} with a redirect (HTTP ${status}); svc does not follow redirects, so the token never leaves the configured base URL.`,
        { code: 'redirect_refused', status, requestId, hint: 'Check --base-url: it should point at the service itself.' },
      );
    }
    const message = err?.message ?? `HTTP ${status} from ${op.method} ${path}.`;
    return new ApiError(status, message, {
      code: err?.code ?? `http_${status}`,
      requestId,
      requiredScope: err?.requiredScope,
      nextAction: err?.nextAction,
      hint: errorHint(status, op, retryAfterMs),
    });
  }
}
