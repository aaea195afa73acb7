import { isAbsolute, join } from 'node:path';

type Env = Record<string, string | undefined>;

/** $HOME, else the OS's answer: node:os loads only then (every start, `--help` too, reads these paths). */
const homeDir = (env: Env): string => env.HOME || process.getBuiltinModule('node:os').homedir();

/** $XDG_CONFIG_HOME/svc, default ~/.config/svc (cli-contract 2). A relative XDG_CONFIG_HOME is ignored, as the XDG spec says. */
export function configDir(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homeDir(env), '.config');
  return join(base, 'svc');
}

/** $XDG_CACHE_HOME/svc, default ~/.cache/svc: what svc keeps to go faster, safe to delete. An absolute XDG_CACHE_HOME only, as the XDG spec says. */
export function cacheDir(env: Env): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homeDir(env), '.cache');
  return join(base, 'svc');
}
