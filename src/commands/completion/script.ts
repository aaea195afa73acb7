import { UsageError } from '../../errors.js';
import { SHELLS, type Shell } from './shells/names.js';
import bash from './shells/svc.bash';
import fish from './shells/svc.fish';
import powershell from './shells/svc.ps1';
import zsh from './shells/svc.zsh';

/**
 * svc's own scripts, not @bomb.sh/tab's: tab's bash and PowerShell scripts eval the words typed
 * (a Tab ran `$(...)` and `> file`). Each hands the words to `svc complete --` as separate arguments.
 */
const SCRIPTS: Record<Shell, string> = { bash, zsh, fish, powershell };

export interface ScriptOptions {
  shell: Shell;
}

export function options([shell]: string[]): ScriptOptions {
  if (shell === undefined) throw new UsageError(`Name a shell: svc writes completion scripts for ${SHELLS.join(', ')}.`, 'For example: svc completion bash');
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(`Unknown shell "${shell}": svc writes completion scripts for ${SHELLS.join(', ')}.`, 'For example: svc completion bash');
  }
  return { shell: shell as Shell };
}

/** The script calls `svc complete -- <words>` on each Tab: svc as the shell finds it on PATH. */
export function run({ shell }: ScriptOptions, print: (text: string) => void): void {
  print(SCRIPTS[shell]);
}
