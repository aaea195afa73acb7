import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** $XDG_CONFIG_HOME/svc, default ~/.config/svc (cli-contract 2). A relative XDG_CONFIG_HOME is ignored, as the XDG spec says. */
export function configDir(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return join(base, 'svc');
}

/** $XDG_CACHE_HOME/svc, default ~/.cache/svc: what svc keeps to go faster, safe to delete. An absolute XDG_CACHE_HOME only, as the XDG spec says. */
export function cacheDir(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache');
  return join(base, 'svc');
}
