/** Spinners and progress bars only on a TTY stderr, never under CI or --quiet (cli-contract 1). */
export function progressAllowed(stderrIsTTY: boolean, env: Record<string, string | undefined>, quiet: boolean): boolean {
  if (quiet || !stderrIsTTY) return false;
  const ci = env.CI;
  return ci === undefined || ci === '' || ci === 'false' || ci === '0';
}
