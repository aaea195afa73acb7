import { CommanderError, type Command } from 'commander';
import type { Context } from './context.js';
import { CliError, InterruptedError, isCliError, UsageError } from './errors.js';
import { ExitCode, exitCodeForSignal } from './exit-codes.js';
import { writeError } from './output/error-output.js';
import { bareHelpPath, buildProgram } from './program.js';
import { SecretScrubber, scrubbingStream } from './secrets.js';
import { helpLayout } from './commands/shared/help-layout.js';
import type { CommandHost } from './commands/shared/verb.js';
import type { Session } from './session.js';
import { colorEnabled, painter } from './ui/style.js';
import { DEFAULT_COLUMNS } from './ui/terminal.js';

function applyToTree(cmd: Command, fn: (c: Command) => void): void {
  fn(cmd);
  for (const sub of cmd.commands) applyToTree(sub, fn);
}

/** "svc databases get": a command's full name. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * commander's own exits and errors: its exit(0)s as ok, anything else as a usage error in svc's
 * form, with the command's usage line as the hint.
 */
export function commanderOutcome(err: CommanderError & { command?: Command }): number | UsageError {
  if (err.exitCode === 0) return ExitCode.ok;
  if (err.code === 'commander.help' || err.code === 'commander.executeSubCommandAsync') return ExitCode.usage;
  // Commander quotes unknown options whole: `--token=svc_...` must not come back on stderr.
  const message = err.message.replace(/^error:\s*/, '').replace(/(--?[\w-]+)=[^\s']+/g, '$1=…');
  const cmd = err.command;
  const usage = cmd
    ? `Usage: ${commandPath(cmd)} ${cmd.usage()}  (${commandPath(cmd)} --help for examples)`
    : 'Run the command with --help for its options and examples.';
  return new UsageError(message, usage);
}

/** Parses argv with commander set to throw instead of exiting, its output on the context's streams. */
export async function parseArgv(argv: string[], host: CommandHost, ctx: Pick<Context, 'stdout' | 'stderr' | 'stdoutColumns' | 'stderrColumns'>): Promise<void> {
  // Help fits the terminal it is read on, at word boundaries; 80 columns when piped.
  const outWidth = ctx.stdoutColumns ?? DEFAULT_COLUMNS;
  const program = buildProgram(host, argv, outWidth);
  applyToTree(program, (c) =>
    c
      .exitOverride((err) => {
        // Which command failed to parse: its usage line becomes the hint.
        throw Object.assign(err, { command: c });
      })
      // Subcommand help lists the global options too, as gh's INHERITED FLAGS do, and fits the terminal.
      .configureHelp(helpLayout)
      .configureOutput({
        writeOut: (s) => ctx.stdout.write(s),
        writeErr: (s) => ctx.stderr.write(s),
        getOutHelpWidth: () => outWidth,
        getErrHelpWidth: () => ctx.stderrColumns ?? DEFAULT_COLUMNS,
        // Parse errors are reported by run(), in the same form (and --json envelope) as every other error.
        outputError: () => {},
      }),
  );
  const bare = bareHelpPath(argv);
  if (bare) {
    (bare.length ? program.commands.find((c) => c.name() === bare[0])! : program).outputHelp();
    return;
  }
  await program.parseAsync(argv, { from: 'user' });
}

function toCliError(err: unknown, signal: AbortSignal): CliError {
  if (signal.aborted) {
    const interrupted = err instanceof InterruptedError ? err : new InterruptedError();
    return interrupted.forSignal(exitCodeForSignal(signal.reason));
  }
  if (isCliError(err)) return err;
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new CliError('unexpected', `Unexpected failure: ${reason}`);
}

/**
 * The context with both output streams scrubbed: stdout of known secrets (data stays exact
 * otherwise), stderr also of any URL query string or password. Other members stay lazy getters.
 */
function scrubbedContext(ctx: Context, scrubber: SecretScrubber): Context {
  let stdout: Context['stdout'] | undefined;
  let stderr: Context['stderr'] | undefined;
  return Object.create(ctx, {
    stdout: { get: () => (stdout ??= scrubbingStream(ctx.stdout, (t) => scrubber.scrubKnown(t))) },
    stderr: { get: () => (stderr ??= scrubbingStream(ctx.stderr, (t) => scrubber.scrub(t))) },
  }) as Context;
}

/** Runs one invocation and returns its exit code: the only place that decides how a run ends. */
export async function run(argv: string[], rawCtx: Context): Promise<number> {
  let session: Session | undefined;
  // --jq implies --json: errors too are the JSON envelope, except on a terminal, where a person reads them.
  let json = argv.includes('--json') || (!rawCtx.stderrIsTTY && argv.some((a) => a === '--jq' || a.startsWith('--jq=')));
  const scrubber = new SecretScrubber();
  scrubber.add(rawCtx.env.SVC_API_KEY);
  const ctx = scrubbedContext(rawCtx, scrubber);

  /**
   * The verb's own options, wherever commander stored them: an option that a parent command defines
   * too (`restore drill --report` and `restore drill merge --report`) is parsed by the parent.
   */
  const ownFlags = (cmd: Command, all: Record<string, unknown>) =>
    Object.fromEntries(
      cmd.options
        .map((o) => o.attributeName())
        .map((name) => [name, cmd.opts()[name] ?? all[name]])
        .filter(([, v]) => v !== undefined),
    );

  const host: CommandHost = {
    async run(cmd, load) {
      const flags = cmd.optsWithGlobals();
      json = flags.json === true || (flags.jq !== undefined && !ctx.stderrIsTTY);
      // Loaded here, not at start-up, and side by side: the verb's module and the session's
      // (settings, the API client, the writer) are only needed once a command runs.
      const [verb, { Session }] = await Promise.all([load(), import('./session.js')]);
      const opts = verb.options(cmd.processedArgs as string[], ownFlags(cmd, flags), ctx.env);
      session = await Session.open(ctx, flags, scrubber);
      try {
        // A database's name where its id was expected: resolved here, once for every verb that takes one.
        if (typeof (opts as { databaseId?: unknown }).databaseId === 'string') {
          const { withDatabaseName } = await import('./commands/shared/database-name.js');
          await withDatabaseName(opts, session, (o) => verb.run(o, session!));
        } else await verb.run(opts, session);
      } finally {
        // --jq's lines are written as its thread answers: the run ends once they are, and a jq
        // failure, which came at the render, is the run's outcome even if the verb failed after it.
        await session.flush();
      }
    },
  };

  try {
    await parseArgv(argv, host, ctx);
    return ExitCode.ok;
  } catch (caught) {
    let err = caught;
    if (err instanceof CommanderError) {
      const outcome = commanderOutcome(err);
      if (typeof outcome === 'number') return outcome;
      err = outcome;
    }
    const failure = toCliError(err, ctx.signal);
    const stderrWidth = ctx.stderrIsTTY ? (ctx.stderrColumns ?? DEFAULT_COLUMNS) : undefined;
    if (failure.details.said && !json) return failure.exitCode;
    writeError(ctx.stderr, failure, json, painter(colorEnabled(ctx.stderrIsTTY, ctx.env, !argv.includes('--no-color'))), stderrWidth);
    return failure.exitCode;
  } finally {
    await session?.close();
  }
}
