import type { Command } from 'commander';
import { wrapWords } from '../../output/terminal-text.js';
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

/** Help text footer with examples, the way `gh` shows them. Example commands are never wrapped: they are copied. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/**
 * Help prose, wrapped at word boundaries to the width the help is printed at (the terminal's, or
 * 80 when piped): for addHelpText, which commander prints as given.
 */
export function prose(...paragraphs: string[]): (context: { command: Command }) => string {
  return ({ command }) => {
    const width = command.configureOutput().getOutHelpWidth?.() ?? 80;
    return `\n${paragraphs.map((p) => wrapWords(p, width).join('\n')).join('\n')}`;
  };
}
