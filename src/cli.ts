import { CommanderError, type Command } from 'commander';
import type { CommandHost } from './commands/host.js';
import type { Context } from './context.js';
import { CliError, InterruptedError, isCliError, UsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { writeError } from './output/error-output.js';
import { buildProgram } from './program.js';
import { SecretScrubber } from './secrets.js';
import type { Session } from './session.js';
import { colorEnabled, painter } from './ui/style.js';

function applyToTree(cmd: Command, fn: (c: Command) => void): void {
  fn(cmd);
  for (const sub of cmd.commands) applyToTree(sub, fn);
}

function toCliError(err: unknown, signal: AbortSignal): CliError {
  if (isCliError(err)) return err;
  if (signal.aborted) return new InterruptedError();
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new CliError(ExitCode.unexpected, `Unexpected failure: ${reason}`, {
    code: 'unexpected',
    hint: 'This is a bug in svc; please report it with the command you ran (run with --verbose for the HTTP exchanges).',
  });
}

/** Runs one invocation and returns its exit code: the only place that decides how a run ends. */
export async function run(argv: string[], ctx: Context): Promise<number> {
  let session: Session | undefined;
  let json = argv.includes('--json');
  const scrubber = new SecretScrubber();
  scrubber.add(ctx.env.SVC_API_KEY);

  const host: CommandHost = {
    async run(cmd, load, work) {
      const flags = cmd.optsWithGlobals();
      json = flags.json === true;
      // Loaded here, not at start-up, and side by side: the command's module and the session's
      // (settings, the API client, the writer) are only needed once a command runs.
      const [module, { Session }] = await Promise.all([load(), import('./session.js')]);
      session = await Session.open(ctx, flags, scrubber);
      await work(module, session);
    },
  };

  const program = buildProgram(host, argv);
  applyToTree(program, (c) =>
    c.exitOverride().configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
      // Parse errors are reported below, in the same form (and --json envelope) as every other error.
      outputError: () => {},
    }),
  );

  try {
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return ExitCode.ok;
      if (err.code === 'commander.help' || err.code === 'commander.executeSubCommandAsync') return ExitCode.usage;
      // Commander quotes unknown options whole: `--token=svc_...` must not come back on stderr.
      const message = err.message.replace(/^error:\s*/, '').replace(/(--?[\w-]+)=\S+/g, '$1=…');
      err = new UsageError(message, 'Run the command with --help for its options and examples.');
    }
    const failure = toCliError(err, ctx.signal);
    const safe = new CliError(failure.exitCode, scrubber.scrub(failure.message), {
      ...failure.details,
      hint: failure.details.hint && scrubber.scrub(failure.details.hint),
      nextAction: failure.details.nextAction && scrubber.scrub(failure.details.nextAction),
    });
    writeError(ctx.stderr, safe, json, painter(colorEnabled(ctx.stderrIsTTY, ctx.env, !argv.includes('--no-color'))));
    return failure.exitCode;
  } finally {
    await session?.close();
  }
}
