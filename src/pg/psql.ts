import { execa } from 'execa';
import { InterruptedError, LocalToolError } from '../errors.js';
import type { SecretScrubber } from '../secrets.js';
import { PgError } from './errors.js';
import { quoteConninfo } from './quote.js';

export const PG_CLIENT_INSTALL_HINT =
  'Install the PostgreSQL client tools (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq), or put them on PATH.';

export function isMissing(err: unknown): boolean {
  return (err as { code?: string })?.code === 'ENOENT';
}

export interface PsqlOptions {
  env: Record<string, string | undefined>;
  /** Database to connect to; defaults to PGDATABASE of env. */
  database?: string;
  scrubber: SecretScrubber;
  signal?: AbortSignal;
  /**
   * The session's client_encoding (an archive's `client`, archive-encoding.ts); UTF8 by default.
   * Any other: the script and psql's answers go byte for byte, one character
   * U+0000-U+00FF a byte, as the archive's names were read.
   */
  client?: string;
}

/**
 * svc's statements that must reach the server byte for byte in an archive's encoding go through
 * psql (docs/decisions.md): node-postgres writes every string as UTF-8. Everything else goes
 * through session.ts.
 *
 * Runs a SQL script through psql's stdin, its names and values quoted by quote.ts, as in every
 * statement svc builds. A failure is a PgError, as through node-postgres. execa's own error text holds the command
 * line, so it is never passed on: only scrubbed stderr.
 */
export async function psql(script: string, opts: PsqlOptions): Promise<string> {
  const client = opts.client ?? 'UTF8';
  const bytes = client !== 'UTF8';
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-w'];
  if (opts.database) args.push('-d', `dbname=${quoteConninfo(opts.database)}`);
  try {
    const { stdout } = await execa('psql', args, {
      input: bytes ? Buffer.from(script, 'latin1') : script,
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
