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

/** What a terminal is taken to have when it reports no width: 0 (`script` with no size) or none. */
export const DEFAULT_COLUMNS = 80;

const usable = (columns: unknown): number => (typeof columns === 'number' && Number.isFinite(columns) && columns > 0 ? columns : DEFAULT_COLUMNS);

/**
 * The columns of the terminal `stream` is on; undefined when it is not a terminal (then nothing is
 * cut or wrapped). A terminal that reports 0 or nothing counts as 80 (cli-contract 4).
 */
export function terminalColumns(stream: { isTTY?: boolean; columns?: number }): number | undefined {
  return stream.isTTY === true ? usable(stream.columns) : undefined;
}

/**
 * Makes a terminal stream report a usable width to everyone who reads it, ora and the prompts
 * included: ora divides by `columns ?? 80`, so a terminal of 0 columns made its spinner loop for
 * ever. Node keeps `columns` up to date on resize by assigning it; the assignments still land.
 */
export function reportUsableColumns(stream: NodeJS.WriteStream): void {
  if (stream.isTTY !== true) return;
  let reported = stream.columns;
  Object.defineProperty(stream, 'columns', {
    configurable: true,
    enumerable: true,
    get: () => usable(reported),
    set: (value: number) => {
      reported = value;
    },
  });
}
