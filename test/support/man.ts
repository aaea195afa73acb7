/**
 * Rendering man pages with the machine's man-db (groff underneath), as `man svc` does: for the tests
 * of the generated man page and of the installed package.
 */
import { execa, execaSync } from 'execa';

const inCI = (env: Record<string, string | undefined>) => !!env.CI && env.CI !== 'false' && env.CI !== '0';

/** Why man pages cannot be rendered here, or undefined; under CI nothing may skip (.ci/run installs man-db). */
export function manSkipReason(env: Record<string, string | undefined> = process.env): string | undefined {
  if (inCI(env)) return undefined;
  const found = execaSync('man', ['--version'], { reject: false });
  return found.exitCode === 0 ? undefined : 'no man (man-db) on PATH; set CI=true to make this a failure';
}

export interface Rendered {
  exitCode: number | undefined;
  /** The page as text: overstrike (bold, underline) removed. */
  text: string;
  /** groff's and man's warnings: empty for a clean page. */
  stderr: string;
}

/**
 * `man` with every groff warning on, 80 columns, UTF-8: a page file (`-l file`) or a page name
 * looked up in `manpath` (`-M dir svc`).
 */
export async function renderMan(page: { file: string } | { name: string; manpath: string }): Promise<Rendered> {
  const args = 'file' in page ? ['-l', page.file] : ['-M', page.manpath, page.name];
  const r = await execa('man', ['--warnings=all', '-E', 'UTF-8', ...args], {
    env: { MANWIDTH: '80', MAN_KEEP_FORMATTING: '', MANPAGER: 'cat', PAGER: 'cat', LANG: 'C.UTF-8' },
    reject: false,
    stdin: 'ignore',
  });
  return { exitCode: r.exitCode, text: r.stdout.replace(/.\x08/g, ''), stderr: r.stderr };
}
