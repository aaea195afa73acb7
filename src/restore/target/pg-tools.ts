import { statSync } from 'node:fs';
import { execa } from 'execa';
import { LocalToolError } from '../../errors.js';
import { pathDirs, programsIn } from './pg-install.js';

export const PG_CLIENT_INSTALL_HINT =
  'Install the PostgreSQL client tools (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq), or put them on PATH.';

const isMissing = (err: unknown) => (err as { code?: string })?.code === 'ENOENT';

export interface PgToolVersion {
  major: number;
  minor: number;
  text: string;
}

type Env = Record<string, string | undefined>;

/**
 * Answers already had in this process, by PATH and the file found first on it (and its modification
 * time): a drill restores many databases, and each restore's preflight asks again.
 */
const probed = new Map<string, Promise<PgToolVersion>>();

/** `psql --version` → "psql (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)", asked once per PATH and file. */
export function toolVersion(tool: 'psql', env: Env): Promise<PgToolVersion> {
  const [first] = programsIn(tool, pathDirs(env));
  if (first === undefined) return probe(tool, env);
  const key = `${env.PATH}\0${first}\0${statSync(first, { throwIfNoEntry: false })?.mtimeMs ?? 0}`;
  let found = probed.get(key);
  if (!found) {
    found = probe(tool, env);
    probed.set(key, found);
    // A failure is not kept: the next restore asks again, and says why again.
    found.catch(() => probed.delete(key));
  }
  return found;
}

async function probe(tool: 'psql', env: Env): Promise<PgToolVersion> {
  try {
    const { stdout } = await execa(tool, ['--version'], { env, extendEnv: false });
    const match = /(\d+)(?:\.(\d+))?/.exec(stdout);
    if (!match) throw new LocalToolError(`Could not read the version of ${tool}.`);
    return { major: Number(match[1]), minor: Number(match[2] ?? 0), text: stdout.trim() };
  } catch (err) {
    if (err instanceof LocalToolError) throw err;
    if (isMissing(err)) throw new LocalToolError(`${tool} was not found on PATH.`, PG_CLIENT_INSTALL_HINT);
    throw new LocalToolError(`${tool} --version failed.`, PG_CLIENT_INSTALL_HINT);
  }
}
