import type { Prompter } from '../context.js';
import { promptSignal } from './hangup.js';

/**
 * @clack/prompts is loaded only when a prompt is actually shown. The signal ends a prompt on
 * SIGTERM/SIGHUP too: clack sees only the Ctrl-C keypress, and a raw-mode terminal never sends SIGINT.
 * A terminal that hangs up ends it as well (./hangup.ts).
 */
export const clackPrompter: Prompter = {
  async secret(message, signal) {
    const clack = await import('@clack/prompts');
    const until = promptSignal(process.stdin, signal);
    try {
      // No mask character at all: a `*` per key would show the token's length (cli-contract 4, v4).
      const value = await clack.password({ message, mask: '', signal: until.signal });
      return clack.isCancel(value) ? undefined : value;
    } finally {
      until.dispose();
    }
  },
  async text(message, validate, signal) {
    const clack = await import('@clack/prompts');
    const until = promptSignal(process.stdin, signal);
    try {
      const value = await clack.text({ message, validate: validate ? (v) => validate(v ?? '') : undefined, signal: until.signal });
      return clack.isCancel(value) ? undefined : value;
    } finally {
      until.dispose();
    }
  },
};
