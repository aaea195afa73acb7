import { ApiClient } from './api/client.js';
import { requireToken, type Login, type TokenSource } from './auth/token-store.js';
import { DEFAULT_PROFILE } from './config/config-file.js';
import type { Context } from './context.js';
import { CliError } from './errors.js';
import type { JqProgram } from './output/jq.js';
import { svcCommand, type GivenFlags, type Word } from './output/shell-quote.js';
import { Writer, type TableDrawer } from './output/writer.js';
import type { SecretScrubber } from './secrets.js';
import { resolveBaseUrl, resolveSettings, type GlobalFlags, type Settings } from './settings.js';
import { Reporter } from './ui/reporter.js';
import { colorEnabled, painter, type Paint } from './ui/style.js';
import { progressAllowed, unicodeSupported } from './ui/terminal.js';

/** What a command's run() gets: settings, the output writer, the stderr reporter and the API client. */
export class Session {
  readonly settings: Settings;
  readonly out: Writer;
  readonly ui: Reporter;
  readonly paint: Paint;
  #client: ApiClient | undefined;
  readonly #others: ApiClient[] = [];
  readonly #jq: JqProgram | undefined;
  #baseUrl: string | undefined;
  /** `svc mcp serve`: hints name tools, and commands carry what a person's own shell lacks. */
  #agents = false;

  /** Settings from the global flags, then the output layer: the table drawer (cli-table3) only for human output. */
  static async open(ctx: Context, flags: GlobalFlags, secrets: SecretScrubber): Promise<Session> {
    const settings = resolveSettings(flags, ctx.env);
    // Loaded only where used: cli-table3 for human output, jq's WebAssembly build for --jq (whose
    // expression is compiled here, so a bad one is exit 2 before any request; its thread is the
    // session's, closed with it).
    const drawTable = settings.json ? undefined : (await import('./output/table.js')).drawTable;
    const jq = settings.jq === undefined ? undefined : await (await import('./output/jq.js')).compileJq(settings.jq, ctx.signal);
    return new Session(ctx, flags, secrets, settings, { drawTable, jq });
  }

  private constructor(
    readonly ctx: Context,
    private readonly flags: GlobalFlags,
    readonly secrets: SecretScrubber,
    settings: Settings,
    output: { drawTable: TableDrawer | undefined; jq: JqProgram | undefined },
  ) {
    this.settings = settings;
    this.#jq = output.jq;
    this.paint = painter(colorEnabled(ctx.stdoutIsTTY, ctx.env, this.settings.color));
    const errPaint = painter(colorEnabled(ctx.stderrIsTTY, ctx.env, this.settings.color));
    this.ui = new Reporter(ctx.stderr, {
      quiet: this.settings.quiet,
      animated: progressAllowed(ctx.stderrIsTTY, ctx.env, this.settings.quiet),
      paint: errPaint,
      unicode: unicodeSupported(ctx.env),
      width: ctx.stderrIsTTY ? ctx.stderrColumns : undefined,
    });
    this.out = new Writer(ctx.stdout, {
      json: this.settings.json,
      paint: this.paint,
      ...output,
      width: ctx.stdoutIsTTY ? ctx.stdoutColumns : undefined,
      notice: (message, style, commands) => (commands ? this.ui.commands(message, style) : this.ui.info(message, style)),
      scrubDocument: (document) => secrets.scrubDocument(document),
      mayChangeDocument: (json) => secrets.mayChangeDocument(json),
    });
  }

  /** The flags this run was given that choose the service and the login, for a command svc prints (cli-contract 4, v5). */
  loginArgs(): string[] {
    return [
      ...(this.flags.profile === undefined ? [] : ['--profile', this.flags.profile]),
      ...(this.flags.baseUrl === undefined ? [] : ['--base-url', this.flags.baseUrl]),
    ];
  }

  now(): Date {
    return this.ctx.now();
  }

  /** For `svc mcp serve`, before the first request: the readers of its errors are agents (cli-contract 10, v5). */
  serveAgents(): void {
    this.#agents = true;
  }

  /** --base-url and --profile as the user gave them on this command line (not from the environment, which the next command shares). */
  get given(): GivenFlags {
    return { baseUrl: this.flags.baseUrl, profile: this.flags.profile };
  }

  /**
   * An svc command for the person to run next (output/shell-quote.ts), carrying the flags they gave;
   * for an agent's result, the profile and base URL this run uses wherever they came from, since the
   * person's own shell lacks the agent client's environment.
   */
  svcCommand(words: readonly Word[], operands: readonly Word[] = []): string {
    return svcCommand(words, this.#audienceFlags(), operands);
  }

  #audienceFlags(): GivenFlags {
    if (!this.#agents) return this.given;
    const { profile } = this.settings;
    return { baseUrl: this.flags.baseUrl ?? this.ctx.env.SVC_BASE_URL, profile: profile === DEFAULT_PROFILE ? undefined : profile };
  }

  async baseUrl(): Promise<string> {
    this.#baseUrl ??= await resolveBaseUrl(this.flags, this.ctx, this.settings.profile);
    return this.#baseUrl;
  }

  /** The saved login this run uses: its profile and the service it reaches. */
  async login(): Promise<Login> {
    return { profile: this.settings.profile, baseUrl: await this.baseUrl() };
  }

  /** The API client, created on first use with the resolved base URL and token. */
  async api(): Promise<ApiClient> {
    if (!this.#client) {
      const login = await this.login();
      const { token, source } = await requireToken(this.ctx, login, (m) => this.ui.warn(m));
      this.#client = this.#makeClient(login.baseUrl, token, source);
    }
    return this.#client;
  }

  /** A client for a token that is not stored yet (auth login verifies it first). */
  async apiWithToken(token: string): Promise<ApiClient> {
    await this.#client?.close();
    this.#client = this.#makeClient(await this.baseUrl(), token);
    return this.#client;
  }

  /** A client for another saved login (auth status --all); closed with the session. */
  async clientFor(baseUrl: string, token: string): Promise<ApiClient> {
    const client = this.#makeClient(baseUrl, token, 'keychain');
    this.#others.push(client);
    return client;
  }

  #makeClient(baseUrl: string, token: string, tokenSource?: TokenSource): ApiClient {
    this.secrets.add(token);
    return new ApiClient({
      baseUrl,
      token,
      tokenSource,
      audience: { given: this.#audienceFlags(), mcp: this.#agents },
      timeoutMs: this.settings.timeoutMs,
      maxRetries: this.settings.maxRetries,
      sleep: this.ctx.sleep,
      random: this.ctx.random,
      now: () => this.ctx.now().getTime(),
      signal: this.ctx.signal,
      env: this.ctx.env,
      log: this.settings.verbose ? (line) => this.ui.debug(line) : undefined,
      onRetry: (message) => this.ui.info(message),
    });
  }

  /**
   * Waits until every document is on stdout. A --jq failure comes after the command's own work: after a
   * POST, its hint says the change stands rather than that nothing changed (cli-contract 4, v5).
   */
  async flush(): Promise<void> {
    try {
      await this.out.flush();
    } catch (err) {
      if (err instanceof CliError && err.details.code === 'jq_failed' && [this.#client, ...this.#others].some((c) => c?.changedService)) {
        err.details.hint =
          'The command itself succeeded and its change at the service stands; only the --jq expression failed, on the JSON document --json prints.';
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#client?.close(), ...this.#others.map((c) => c.close()), this.#jq?.close()]);
  }
}
