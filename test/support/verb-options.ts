/**
 * cli/cli's NewCmdX test for svc: parse argv with the real command tree, stop after the verb's
 * options() and hand back what it returned, or the usage error, with no server and no session.
 */
import { CommanderError } from 'commander';
import { PassThrough } from 'node:stream';
import { commanderOutcome, parseArgv } from '../../src/cli.js';
import { CliError } from '../../src/errors.js';

export type OptionsResult = { ok: true; options: unknown; verb: string } | { ok: false; exitCode: number; message: string };

/** `argv` as a user types it after `svc`, with `env` as the process environment. */
export async function parseOptions(argv: string[], env: Record<string, string | undefined> = {}): Promise<OptionsResult> {
  let captured: { options: unknown; verb: string } | undefined;
  const sink = new PassThrough();
  sink.resume();
  try {
    await parseArgv(
      argv,
      {
        async run(cmd, load) {
          const verb = await load();
          const path: string[] = [];
          for (let c: typeof cmd | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
          captured = { options: verb.options(cmd.processedArgs as string[], cmd.opts(), env), verb: path.join(' ') };
        },
      },
      { stdout: sink, stderr: sink },
    );
  } catch (err) {
    const failure = err instanceof CommanderError ? commanderOutcome(err) : err;
    if (failure instanceof CliError) return { ok: false, exitCode: failure.exitCode, message: failure.message };
    if (typeof failure === 'number') return { ok: false, exitCode: failure, message: '' };
    throw failure;
  }
  if (!captured) throw new Error(`${argv.join(' ')}: no verb ran`);
  return { ok: true, ...captured };
}
