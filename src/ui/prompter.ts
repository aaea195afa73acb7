import { styleText } from 'node:util';
import type { Prompter } from '../context.js';
import { wrapWords } from '../output/terminal-text.js';
import { promptSignal } from './hangup.js';

/** The columns clack draws before a message line: its symbol or bar, and two spaces. */
const GUIDE_COLUMNS = 3;

/**
 * A message as lines that fit the terminal, broken at spaces, each after the first starting with
 * clack's left bar: clack's own wrap leaves the bar off the lines it makes (cli-contract 4, v4).
 */
export function guided(message: string, columns: number, bar: string): string {
  const [first = '', ...rest] = wrapWords(message, Math.max(1, columns - GUIDE_COLUMNS));
  return [first, ...rest.map((line) => `${bar}  ${line}`)].join('\n');
}

const stdoutColumns = () => process.stdout.columns || 80;

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
      const value = await clack.text({
        message: guided(message, stdoutColumns(), styleText('gray', clack.S_BAR)),
        validate: validate ? (v) => validate(v ?? '') : undefined,
        signal: until.signal,
      });
      return clack.isCancel(value) ? undefined : value;
    } finally {
      until.dispose();
    }
  },
};
