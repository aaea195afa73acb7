import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';

type Env = Record<string, string | undefined>;

/** Where PostgreSQL installs its programs, by family, each family newest major first (cli-contract 7 step 0, 9 step 2). */
const FAMILIES: Array<{ root: string; entry: RegExp; bin: (entry: string) => string }> = [
  // Debian and Ubuntu: /usr/lib/postgresql/<major>/bin.
  { root: '/usr/lib/postgresql', entry: /^(\d+)$/, bin: (e) => join('/usr/lib/postgresql', e, 'bin') },
  // Homebrew on Apple silicon and on Intel: postgresql@<major>.
  { root: '/opt/homebrew/opt', entry: /^postgresql@(\d+)$/, bin: (e) => join('/opt/homebrew/opt', e, 'bin') },
  { root: '/usr/local/opt', entry: /^postgresql@(\d+)$/, bin: (e) => join('/usr/local/opt', e, 'bin') },
  // Postgres.app.
  { root: '/Applications/Postgres.app/Contents/Versions', entry: /^(\d+)$/, bin: (e) => join('/Applications/Postgres.app/Contents/Versions', e, 'bin') },
];

/** A source build's default prefix. */
const SOURCE_BUILD = '/usr/local/pgsql/bin';

function family(f: (typeof FAMILIES)[number]): string[] {
  let entries: string[];
  try {
    entries = readdirSync(f.root);
  } catch {
    return [];
  }
  return entries
    .map((e) => ({ e, major: Number(f.entry.exec(e)?.[1] ?? Number.NaN) }))
    .filter((x) => Number.isInteger(x.major))
    .sort((a, b) => b.major - a.major)
    .map((x) => f.bin(x.e));
}

/** The well-known install directories that exist: Debian's newest first, a source build, Homebrew's, Postgres.app's. */
export function installDirs(): string[] {
  const [debian = [], ...others] = FAMILIES.map(family);
  return [...debian, SOURCE_BUILD, ...others.flat()].filter((d) => existsSync(d));
}

/** The directories of PATH, in order. */
export function pathDirs(env: Env): string[] {
  return (env.PATH ?? '').split(delimiter).filter(Boolean);
}

/** `program` in `dirs`, each found file once (by its real path), in the order given. */
export function programsIn(program: string, dirs: string[]): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  for (const dir of dirs) {
    const file = join(dir, program);
    if (!existsSync(file)) continue;
    let real: string;
    try {
      real = realpathSync(file);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    found.push(file);
  }
  return found;
}
