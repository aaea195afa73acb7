/** One argument for a POSIX shell: bare when that is safe, else single-quoted ('\'' for a quote inside). */
export function shellArg(value: string): string {
  return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A command line that pastes back into a shell as the same argv. */
export const shellCommand = (argv: string[]): string => argv.map(shellArg).join(' ');
