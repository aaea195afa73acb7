import { execa } from 'execa';
import { LocalToolError } from '../../errors.js';
import { isMissing, PG_CLIENT_INSTALL_HINT } from '../../pg/psql.js';

export interface PgToolVersion {
  major: number;
  minor: number;
  text: string;
}

/** `psql --version` → "psql (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)". */
export async function toolVersion(tool: 'psql', env: Record<string, string | undefined>): Promise<PgToolVersion> {
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
