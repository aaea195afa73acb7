import { RootCommand } from '@bomb.sh/tab';
import { UsageError } from '../../errors.js';

/** The shells @bomb.sh/tab writes scripts for. */
export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

export interface ScriptOptions {
  shell: Shell;
}

export function options([shell]: string[]): ScriptOptions {
  if (!(SHELLS as readonly string[]).includes(shell ?? '')) {
    throw new UsageError(`Unknown shell "${shell ?? ''}": svc writes completion scripts for ${SHELLS.join(', ')}.`, 'For example: svc completion bash');
  }
  return { shell: shell as Shell };
}

/**
 * What @bomb.sh/tab prints, as text: it writes its scripts and candidates with console.log (its
 * only output), and svc's output goes through the context's stdout.
 */
export function printed(write: () => void): string {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  try {
    write();
  } finally {
    console.log = log;
  }
  return lines.map((line) => `${line}\n`).join('');
}

/** The script calls `svc complete -- <words>` on each Tab: svc as the shell finds it on PATH. */
export function run({ shell }: ScriptOptions, print: (text: string) => void): void {
  print(printed(() => new RootCommand().setup('svc', 'svc', shell)));
}
