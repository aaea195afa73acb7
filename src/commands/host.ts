import type { Command } from 'commander';
import type { Session } from '../session.js';

/**
 * Runs a command's work with a Session built from its global flags; implemented by cli.ts.
 * `load` imports the module that holds the work: commands are registered without loading it, so
 * `svc --help` and every other command never pay for it.
 */
export interface CommandHost {
  run<M>(cmd: Command, load: () => Promise<M>, work: (module: M, session: Session) => Promise<void>): Promise<void>;
}

/** Help text footer with examples, the way `gh` shows them. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}
