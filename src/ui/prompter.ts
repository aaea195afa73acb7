import type { Prompter } from '../context.js';

/**
 * @clack/prompts is loaded only when a prompt is actually shown. The signal ends a prompt on
 * SIGTERM/SIGHUP too: clack sees only the Ctrl-C keypress, and a raw-mode terminal never sends SIGINT.
 */
export const clackPrompter: Prompter = {
  async secret(message, signal) {
    const clack = await import('@clack/prompts');
    const value = await clack.password({ message, mask: '*', signal });
    return clack.isCancel(value) ? undefined : value;
  },
  async text(message, validate, signal) {
    const clack = await import('@clack/prompts');
    const value = await clack.text({ message, validate: validate ? (v) => validate(v ?? '') : undefined, signal });
    return clack.isCancel(value) ? undefined : value;
  },
};
