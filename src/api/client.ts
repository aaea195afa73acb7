import type { Dispatcher } from 'undici';
import type * as z from '../zod.js';
import { CliError, ContractError, InterruptedError } from '../errors.js';
import { USER_AGENT } from '../version.js';
import { attemptSignal } from './attempt-signal.js';
import { API_BODY_LIMIT, BodyTooLarge, ERROR_BODY_LIMIT, readBounded } from './body.js';
import { parseResponse } from './contract.js';
import type { HintAudience, HintContext, NotFound } from './error-hints.js';
import { exchangeLine, header, monotonicMs, type Headers } from './exchange-log.js';
import { networkFailure } from './network-failure.js';
import type { Operation } from './operation.js';
import { RateBudget } from './pacing.js';
import { statusVerdict, withRetries, type Attempt } from './retry.js';
import { svcCommand, type Word } from '../output/shell-quote.js';
import { safeJson, statusError } from './status-error.js';
import { loadTransport, type HttpDispatcher, type Transport } from './undici.js';

export type { Operation } from './operation.js';

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
  /** The clock for pacing on rate-limit headers (ms since the epoch); Date.now where not given. */
  now?: () => number;
  /** Proxy settings (HTTPS_PROXY, NO_PROXY, ...) are read from here. */
  env?: Record<string, string | undefined>;
  /** One line per HTTP exchange for --verbose; never handed a secret. */
  log?: (line: string) => void;
  /** Each retry, said before its wait ("Rate limited; retrying in 10s (1/4)"). */
  onRetry?: (message: string) => void;
  /** Aborted on SIGINT, SIGTERM or SIGHUP. */
  signal?: AbortSignal;
  /** Where the token came from: a 401's advice differs (SVC_API_KEY overrides any saved login). */
  tokenSource?: HintContext['tokenSource'];
  /** Who reads an error's hint, and the flags its commands carry. */
  audience?: HintAudience;
}

type Response = { status: number; headers: Headers; text: string };

/**
 * A header value must not carry CR, LF or other controls (C0, DEL, C1: cli-contract 6): it would
 * end the header early, be refused, or (C1, which undici sends as a Latin-1 byte) reach the service.
 */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

/** The one HTTP client: auth, timeouts, bounded bodies, retries with Retry-After, idempotency keys, request ids, validation. */
export class ApiClient {
  readonly #config: ClientConfig;
  readonly #origin: string;
  #transport: Promise<{ dispatcher: HttpDispatcher; request: Transport['request'] }> | undefined;
  /** One budget per client, so per key: everything sent through this client at once shares it (cli-contract 6, v4). */
  readonly #budget: RateBudget;
  /** close() was called: a request still queued or on its way fails because svc ended it, not the network. */
  #closed = false;
  #changed = false;

  constructor(config: ClientConfig) {
    if (CONTROL.test(config.token) || /\s/.test(config.token)) {
      throw new CliError('invalid_token', 'The API token contains spaces or control characters, so it cannot be sent; nothing was sent.');
    }
    this.#config = config;
    this.#origin = config.baseUrl;
    this.#budget = new RateBudget({ sleep: config.sleep, random: config.random, now: config.now ?? Date.now, signal: config.signal, log: config.log });
  }

  get origin(): string {
    return this.#origin;
  }

  /** A request other than GET was answered with success: the run changed something at the service. */
  get changedService(): boolean {
    return this.#changed;
  }

  /**
   * One keep-alive connection for the whole run: an --all walk reuses the same socket (cli-contract 6).
   * The client's requests are sequential, and with more than one connection allowed undici's pool
   * opens a second socket while the first is still settling after a response.
   */
  #connect(): Promise<{ dispatcher: HttpDispatcher; request: Transport['request'] }> {
    this.#transport ??= loadTransport().then(({ dispatcher, request }) => ({
      dispatcher: dispatcher(this.#config.env ?? {}, { connections: 1, keepAliveTimeout: 30_000 }),
      request,
    }));
    return this.#transport;
  }

  /** An svc command for the reader of this client's errors, carrying the flags of their run (output/shell-quote.ts). */
  svcCommand = (words: readonly Word[], operands: readonly Word[] = []): string => svcCommand(words, this.#config.audience?.given, operands);

  /** A --verbose line about the requests (why svc waited, what a selection read); nothing without --verbose. */
  debug(line: string): void {
    this.#config.log?.(line);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const transport = await this.#transport?.catch(() => undefined);
    await transport?.dispatcher.destroy(closingError());
  }

  async send<S extends z.ZodMiniType>(op: Operation<S>): Promise<ApiResult<z.infer<S>>> {
    const raw = await this.sendRaw(op.method, this.#url(op.path, op.query), op.body, op.idempotencyKey, op.name, op.notFound);
    const json = safeJson(raw.text);
    if (json === undefined) throw new ContractError(`The response of ${op.method} ${raw.path} is not JSON.`, raw.requestId);
    const data = parseResponse(op.response, json, `${op.name} (${op.method} ${raw.path})`, raw.requestId);
    return { data, status: raw.status, requestId: raw.requestId };
  }

  /**
   * Any request below /api/v1 with the client's auth, retries, timeouts, bounds and logging; the
   * 2xx body comes back as text, unvalidated (svc api). Non-2xx statuses throw as for send().
   */
  async sendRaw(
    method: string,
    url: string,
    body: unknown,
    idempotencyKey: string | undefined,
    what = `${method} request`,
    notFound?: NotFound,
  ): Promise<{ status: number; text: string; requestId: string | undefined; path: string }> {
    const path = url.slice(this.#origin.length);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#config.token}`,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    let payload: string | undefined;
    if (method === 'POST') {
      headers['content-type'] = 'application/json';
      // One key per logical request, made here and only here: every retry below reuses it.
      // node:crypto loads only here: a read-only run never needs it.
      headers['idempotency-key'] = idempotencyKey ?? (await import('node:crypto')).randomUUID();
      payload = JSON.stringify(body ?? {});
    }

    const response = await withRetries<Response>(
      {
        maxRetries: this.#config.maxRetries,
        sleep: this.#config.sleep,
        random: this.#config.random,
        signal: this.#config.signal,
        onRetry: this.#config.onRetry,
      },
      (n) => this.#budget.paced((answered) => this.#attempt(method, url, path, headers, payload, n, what, notFound, answered)),
    );
    if (method !== 'GET') this.#changed = true;
    return { status: response.status, text: response.text, requestId: header(response.headers, 'x-request-id'), path };
  }

  #url(path: string, query: Operation['query']): string {
    const url = new URL(`${this.#origin}/api/v1${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.href;
  }

  /** One attempt, once the budget allows it (see sendRaw); the response's headers go back to the budget as soon as they arrive. */
  async #attempt(
    method: string,
    url: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    n: number,
    what: string,
    notFound: NotFound | undefined,
    answered: (headers: Headers) => void,
  ): Promise<Attempt<Response>> {
    // Outside the try: failing to load the transport is a bug to report, not a network error to retry.
    const { dispatcher, request } = await this.#connect();
    const attempt = attemptSignal(this.#config.timeoutMs, this.#config.signal);
    const started = monotonicMs();
    const ms = () => Math.round(monotonicMs() - started);
    let status = 0;
    let resHeaders: Headers = {};
    try {
      const res = await request(url, { method: method as Dispatcher.HttpMethod, headers, body, signal: attempt.signal, dispatcher });
      status = res.statusCode;
      resHeaders = res.headers;
      answered(resHeaders);
      const ok = status >= 200 && status < 300;
      const text = await readBounded(res.body, ok ? API_BODY_LIMIT : ERROR_BODY_LIMIT, { truncate: !ok });
      this.#config.log?.(exchangeLine(method, path, { status, headers: resHeaders }, ms(), n));
      if (ok) return { ok: true, value: { status, headers: resHeaders, text } };
      return {
        ok: false,
        error: statusError(method, path, status, resHeaders, text, { notFound, tokenSource: this.#config.tokenSource, audience: this.#config.audience }),
        ...statusVerdict(status, header(resHeaders, 'retry-after')),
      };
    } catch (error) {
      if (this.#config.signal?.aborted) throw new InterruptedError();
      // The session closed the connection under this request (undici: UND_ERR_DESTROYED): no network failure, no retry.
      if (this.#closed)
        return {
          ok: false,
          retryable: false,
          error: new CliError('unexpected', `${method} ${path} was abandoned: svc closed its connection as the run ended.`),
        };
      if (error instanceof BodyTooLarge) {
        this.#config.log?.(exchangeLine(method, path, { status, headers: resHeaders }, ms(), n));
        throw new CliError(
          'response_too_large',
          `The response of ${what} (${method} ${path}) is larger than ${API_BODY_LIMIT / 1024 / 1024} MiB; it was dropped.`,
          { requestId: header(resHeaders, 'x-request-id'), status },
        );
      }
      const timedOut = attempt.timedOut;
      this.#config.log?.(exchangeLine(method, path, timedOut ? 'timeout' : { error }, ms(), n));
      return {
        ok: false,
        retryable: true,
        error: networkFailure(error, {
          method,
          path,
          origin: this.#origin,
          peer: 'the service',
          timedOut,
          timeoutMs: this.#config.timeoutMs,
          env: this.#config.env ?? {},
        }),
      };
    } finally {
      attempt.end();
    }
  }
}

/**
 * What the connection is destroyed with as the run ends. Node reads the stack of the error a socket
 * is destroyed with; undici's own (ClientDestroyedError) would have V8 format one through the 250 KB
 * of undici's file, millions of instructions at the end of every API command. This one's stack is its message.
 */
function closingError(): Error {
  const error = new Error('svc closed its connection as the run ended');
  error.stack = error.message;
  return error;
}
