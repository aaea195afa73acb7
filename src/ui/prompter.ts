import type { Prompter } from '../context.js';

/** @clack/prompts is loaded only when a prompt is actually shown. */
export const clackPrompter: Prompter = {
  async secret(message) {
    const clack = await import('@clack/prompts');
    const value = await clack.password({ message, mask: '*' });
    return clack.isCancel(value) ? undefined : value;
  },
  async text(message, validate) {
    const clack = await import('@clack/prompts');
    const value = await clack.text({ message, validate: validate ? (v) => validate(v ?? '') : undefined });
    return clack.isCancel(value) ? undefined : value;
  },
};
