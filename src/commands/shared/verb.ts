import type { Command } from 'commander';
import type { Session } from '../../session.js';

export type Env = Record<string, string | undefined>;

/**
 * A verb module (src/commands/<resource>/<verb>.ts). `options` is the only place its arguments
 * and flags are checked: everything local, no I/O, a UsageError (exit 2) before any request.
 * `run` does the work with what options returned.
 */
export interface Verb<O = unknown> {
  options(args: string[], flags: any, env: Env): O;
  run(opts: O, session: Session): Promise<void>;
}

export type VerbLoader = () => Promise<Verb<any>>;

/** Runs a verb for a parsed command line: implemented by cli.ts (and by the options tests, which stop after options()). */
export interface CommandHost {
  run(cmd: Command, load: VerbLoader): Promise<void>;
}

/**
 * The one adapter between commander and a verb: the action commander calls, which loads the verb
 * module only now (so `svc --help` and every other command never pay for it) and hands it to the host.
 */
export function verb(host: CommandHost, load: VerbLoader): (...actionArgs: unknown[]) => Promise<void> {
  return (...actionArgs) => host.run(actionArgs[actionArgs.length - 1] as Command, load);
}

/** Help text footer with examples, the way `gh` shows them. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}
