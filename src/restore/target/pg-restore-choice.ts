import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { LocalToolError } from '../../errors.js';
import { shellArg } from '../../output/shell-quote.js';
import { canRead, minPgRestoreMajor, type ArchiveHeader } from '../archive/archive.js';
import { installDirs, pathDirs, programsIn } from './pg-install.js';
import { PG_CLIENT_INSTALL_HINT, toolVersion, type PgToolVersion } from './pg-tools.js';

type Env = Record<string, string | undefined>;

export interface PgRestoreBinary extends PgToolVersion {
  path: string;
}

/**
 * Versions already asked in this process, by file and its modification time: a drill restores many
 * databases, and every `--version` is a process (through Debian's pg_wrapper, a Perl one).
 */
const probed = new Map<string, Promise<PgRestoreBinary | undefined>>();

function versionOf(path: string, env: Env): Promise<PgRestoreBinary | undefined> {
  const key = `${path}\0${statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0}`;
  let found = probed.get(key);
  if (!found) {
    found = execa(path, ['--version'], { env, extendEnv: false, reject: false, stdin: 'ignore' }).then((r) => {
      const m = r.exitCode === 0 ? /(\d+)(?:\.(\d+))?/.exec(String(r.stdout)) : null;
      return m ? { path, major: Number(m[1]), minor: Number(m[2] ?? 0), text: String(r.stdout).trim() } : undefined;
    });
    probed.set(key, found);
  }
  return found;
}

/**
 * The pg_restore a restore starts with (cli-contract 7.2): PATH's, else the newest of the
 * well-known install directories. None at all is exit 11 before anything is asked of the service.
 */
export async function findPgRestore(env: Env): Promise<PgRestoreBinary> {
  for (const path of programsIn('pg_restore', pathDirs(env))) {
    const found = await versionOf(path, env);
    if (found) return found;
  }
  const installed = await everyPgRestore(env, installDirs());
  if (installed[0]) return installed[0];
  throw new LocalToolError('pg_restore was not found on PATH or in the usual PostgreSQL install directories.', PG_CLIENT_INSTALL_HINT);
}

/** Every pg_restore of `dirs` that runs, newest major first. */
async function everyPgRestore(env: Env, dirs: string[]): Promise<PgRestoreBinary[]> {
  const found = await Promise.all(programsIn('pg_restore', dirs).map((p) => versionOf(p, env)));
  return found.filter((b): b is PgRestoreBinary => b !== undefined).sort((a, b) => b.major - a.major || b.minor - a.minor);
}

/**
 * The pg_restore that restores this archive (cli-contract 7, step 0): the one found first where it
 * reads the archive's format, else the newest one on PATH or installed that does. None is exit 11 naming the
 * archive's format and the client major it takes.
 */
export async function pgRestoreFor(header: ArchiveHeader, first: PgRestoreBinary, env: Env): Promise<PgRestoreBinary> {
  if (canRead(header, first.major)) return first;
  const others = await everyPgRestore(env, [...pathDirs(env), ...installDirs()]);
  const reader = others.find((b) => canRead(header, b.major));
  if (reader) return reader;
  const needed = minPgRestoreMajor(header);
  const by = header.pgDumpVersion ? ` written by pg_dump ${header.pgDumpVersion}` : '';
  const seen = [first, ...others.filter((b) => b.path !== first.path)].map(
    (b) => `${b.text.replace(/^pg_restore \(PostgreSQL\) /, 'pg_restore ')} (${b.path})`,
  );
  const takes = needed === undefined ? 'a pg_restore newer than any svc knows' : `pg_restore ${needed} or newer`;
  throw new LocalToolError(
    `The archive is format ${header.version}${by}; reading it takes ${takes}, and this machine has ${seen.join(', ')}. Nothing was restored.`,
    needed === undefined
      ? 'Install the newest PostgreSQL client tools, then run the restore again.'
      : `Install the PostgreSQL ${needed} client tools (Debian/Ubuntu: apt-get install postgresql-client-${needed}; macOS: brew install postgresql@${needed}), then run the restore again.`,
  );
}

/**
 * pg_restore and psql, looked for at once (a restore needs both). Where both are missing both are
 * named: "pg_restore was not found" is what a user searches for, not only psql's line.
 */
export async function findClientTools(env: Env): Promise<PgRestoreBinary> {
  const [pgRestore, psql] = await Promise.allSettled([findPgRestore(env), toolVersion('psql', env)]);
  const failed = [pgRestore, psql].filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
  if (failed.length === 2 && failed.every((e) => e instanceof LocalToolError)) {
    throw new LocalToolError((failed as LocalToolError[]).map((e) => e.message).join(' '), PG_CLIENT_INSTALL_HINT);
  }
  if (pgRestore.status === 'fulfilled' && psql.status === 'rejected' && psql.reason instanceof LocalToolError) {
    missingFromPath(pgRestore.value, env);
  }
  if (failed[0] !== undefined) throw failed[0];
  return (pgRestore as PromiseFulfilledResult<PgRestoreBinary>).value;
}

/**
 * psql is missing and the pg_restore svc found is not on PATH either (an install directory's): both
 * are named, with where pg_restore was, and the PATH line that brings both in where psql is beside it.
 */
function missingFromPath(pgRestore: PgRestoreBinary, env: Env): void {
  const onPath = pathDirs(env);
  if (programsIn('psql', onPath).length > 0 || programsIn('pg_restore', onPath).length > 0) return;
  const dir = dirname(pgRestore.path);
  throw new LocalToolError(
    `Neither psql nor pg_restore is on PATH; a restore needs both (svc found pg_restore in ${dir}, but not psql).`,
    existsSync(join(dir, 'psql'))
      ? `Both are in ${dir}: put it on PATH (export PATH=${shellArg(dir)}:"$PATH"), then run the command again.`
      : PG_CLIENT_INSTALL_HINT,
  );
}
