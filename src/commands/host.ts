import type { Command } from 'commander';
import type { Session } from '../session.js';

/** Runs a command's work with a Session built from its global flags; implemented by cli.ts. */
export interface CommandHost {
  run(cmd: Command, work: (session: Session) => Promise<void>): Promise<void>;
}

/** Help text footer with examples, the way `gh` shows them. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}
