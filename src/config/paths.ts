import { homedir } from 'node:os';
import { join } from 'node:path';

/** $XDG_CONFIG_HOME/svc, default ~/.config/svc (cli-contract 2). */
export function configDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'svc');
}
