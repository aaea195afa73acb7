type Env = Record<string, string | undefined>;

/** Spinners and progress bars only on a TTY stderr, never under CI or --quiet (cli-contract 1). */
export function progressAllowed(stderrIsTTY: boolean, env: Env, quiet: boolean): boolean {
  if (quiet || !stderrIsTTY) return false;
  const ci = env.CI;
  return ci === undefined || ci === '' || ci === 'false' || ci === '0';
}

/** Whether the terminal can draw ✓ and ✗: not the Linux console or a dumb terminal, not a legacy Windows console. */
export function unicodeSupported(env: Env, platform: NodeJS.Platform = process.platform): boolean {
  if (env.TERM === 'dumb' || env.TERM === 'linux') return false;
  if (platform !== 'win32') return true;
  return Boolean(env.WT_SESSION || env.TERM_PROGRAM === 'vscode' || env.TERM === 'xterm-256color');
}
