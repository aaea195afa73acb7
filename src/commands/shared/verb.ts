import type { Command } from 'commander';
import { exampleLines } from '../../output/shell-lines.js';
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

/** What commander hands an addHelpText function: whether the help goes to stderr, and for which command. */
type HelpContext = { error: boolean; command: Command };

/** The width the help is printed at: its terminal's, or 80 when piped (cli.ts). */
function helpWidth({ error, command }: HelpContext): number {
  const out = command.configureOutput();
  return (error ? out.getErrHelpWidth?.() : out.getOutHelpWidth?.()) ?? 80;
}

/**
 * Help text footer with examples, the way `gh` shows them, at `width` columns. The commands are
 * copied and run, so a long one is broken only as a shell would read it back (output/shell-lines.ts).
 */
export function exampleBlock(width: number, commands: string[]): string {
  return `\nExamples:\n${commands.flatMap((c) => exampleLines(c, width)).join('\n')}\n`;
}

/** exampleBlock at the width the help is printed at: for addHelpText. */
export function examples(...commands: string[]): (context: HelpContext) => string {
  return (context) => exampleBlock(helpWidth(context), commands);
}

/** Help prose, wrapped at word boundaries to the width the help is printed at: for addHelpText, which commander prints as given. */
export function prose(...paragraphs: string[]): (context: HelpContext) => string {
  return (context) => `\n${paragraphs.map((p) => wrapWords(p, helpWidth(context)).join('\n')).join('\n')}`;
}
