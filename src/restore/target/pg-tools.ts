import { execa } from 'execa';
import { InterruptedError, LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { PgError } from '../../pg/errors.js';

export interface PgToolVersion {
  major: number;
  minor: number;
  text: string;
}

export const PG_CLIENT_INSTALL_HINT =
  'Install the PostgreSQL client tools (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq), or put them on PATH.';

function isMissing(err: unknown): boolean {
  return (err as { code?: string })?.code === 'ENOENT';
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

export interface PsqlOptions {
  env: Record<string, string | undefined>;
  /** Database to connect to; defaults to PGDATABASE of env. */
  database?: string;
  /** psql variables, referenced as :'name' (literal) or :"name" (identifier) in the script: no SQL injection. */
  vars?: Record<string, string>;
  scrubber: SecretScrubber;
  signal?: AbortSignal;
  /** One statement through -c instead of a script on stdin: psql obeys no meta-command in it, and takes no variables. */
  command?: boolean;
  /**
   * The session's client_encoding (an archive's `client`, archive-encoding.ts); UTF8 by default.
   * Any other: the script, the variables and psql's answers go byte for byte, one character
   * U+0000-U+00FF a byte, as the archive's names were read.
   */
  client?: string;
}

/** psql's failures are PgErrors too: one class for a refusal, whichever way svc reached the server. */
export { PgError as PsqlError };

/**
 * Runs a SQL script through psql's stdin (variables are interpolated only in script input, not -c).
 * execa's own error text holds the command line, so it is never passed on: only scrubbed stderr.
 */
export async function psql(script: string, opts: PsqlOptions): Promise<string> {
  const client = opts.client ?? 'UTF8';
  const bytes = client !== 'UTF8';
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-w'];
  // argv is UTF-8: byte for byte, the variables are set in the script itself.
  if (!bytes) for (const [name, value] of Object.entries(opts.vars ?? {})) args.push('-v', `${name}=${value}`);
  const input = bytes
    ? `${Object.entries(opts.vars ?? {})
        .map(([name, value]) => `\\set ${name} ${quoteMeta(value)}\n`)
        .join('')}${script}`
    : script;
  if (opts.database) args.push('-d', `dbname=${quoteConninfo(opts.database)}`);
  try {
    if (opts.command) args.push('-c', script);
    const { stdout } = await execa('psql', args, {
      ...(opts.command ? { stdin: 'ignore' as const } : { input: bytes ? Buffer.from(input, 'latin1') : input }),
      // svc writes its scripts and reads psql's answers as UTF-8 whatever the database's encoding (in a
      // LATIN1 database a schema named "café" must come back as the name svc quotes again), or byte for byte.
      env: { ...opts.env, PGCLIENTENCODING: client },
      ...(bytes ? { encoding: 'latin1' as const } : {}),
      extendEnv: false,
      cancelSignal: opts.signal,
      killSignal: 'SIGINT',
    });
    return stdout.trim();
  } catch (err) {
    if (isMissing(err)) throw new LocalToolError('psql was not found on PATH.', PG_CLIENT_INSTALL_HINT);
    // Said in the words of the step that ran it (the restore run and the drill reword it by phase).
    if (opts.signal?.aborted) throw new InterruptedError('Interrupted while psql was running.');
    const stderr = (err as { stderr?: unknown }).stderr;
    throw new PgError(opts.scrubber.scrub(typeof stderr === 'string' ? stderr.trim() : 'psql failed'));
  }
}

/** A psql meta-command argument in single quotes: '' is a quote, and psql's backslash escapes apply. */
function quoteMeta(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/** A conninfo value in single quotes, so a database name with spaces or '=' stays one value. */
export function quoteConninfo(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
