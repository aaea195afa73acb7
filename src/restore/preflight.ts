import type { RestoreMode } from '../api/schemas/restores.js';
import type { Context } from '../context.js';
import { LocalToolError, UsageError } from '../errors.js';
import type { SecretScrubber } from '../secrets.js';
import { createPgEnv, type PgEnv } from './pg-env.js';
import { psql, PsqlError, toolVersion, type PgToolVersion } from './pg-tools.js';
import { PROTECTED_DATABASES, redactedDsn, type Target } from './target.js';
import { assertFreeSpace, assertWritableDir } from './workdir.js';

export interface PreflightInput {
  target: Target;
  mode: RestoreMode;
  confirm: boolean;
  workDir: string;
  interactive: boolean;
}

export interface PreflightResult {
  pgRestore: PgToolVersion;
  pgEnv: PgEnv;
  /** new_database only: whether the target database must be created before pg_restore. */
  createDatabase: boolean;
}

const MAINTENANCE_DB = 'postgres';

function unreachable(target: Target, stderr: string): LocalToolError {
  return new LocalToolError(
    `Cannot connect to the target ${redactedDsn(target)}: ${stderr.split('\n')[0] || 'psql failed'}`,
    'Check host, port, user and password (SVC_TARGET_DSN, PGPASSWORD or ~/.pgpass), and that the server accepts connections from here.',
  );
}

/**
 * Everything that can be checked before createRestore (cli-contract 7.2): a refused restore
 * must not leave a restore job behind on the service.
 */
export async function preflight(input: PreflightInput, ctx: Context, scrubber: SecretScrubber): Promise<PreflightResult> {
  const { target, mode } = input;
  if (PROTECTED_DATABASES.has(target.database)) {
    throw new UsageError(`Refusing to restore into the system database "${target.database}".`, 'Name another database in --target.');
  }
  if (mode === 'in_place' && !input.confirm && !input.interactive) {
    throw new UsageError(
      `An in-place restore replaces the contents of ${redactedDsn(target)} and needs --confirm in a non-interactive run.`,
      'Add --confirm, or run it in a terminal to type the database name.',
    );
  }
  const pgRestore = await toolVersion('pg_restore', ctx.env);
  await toolVersion('psql', ctx.env);
  await assertWritableDir(input.workDir);
  await assertFreeSpace(input.workDir, 0);

  const pgEnv = await createPgEnv(target, ctx.env);
  try {
    const createDatabase = await checkTarget(input, pgEnv, scrubber, ctx.signal);
    if (mode === 'in_place' && !input.confirm) await confirmInteractively(target, ctx);
    return { pgRestore, pgEnv, createDatabase };
  } catch (err) {
    await pgEnv.dispose();
    throw err;
  }
}

async function checkTarget(input: PreflightInput, pgEnv: PgEnv, scrubber: SecretScrubber, signal: AbortSignal): Promise<boolean> {
  const { target } = input;
  const run = (sql: string, database: string) =>
    psql(sql, { env: pgEnv.env, database, vars: { target: target.database }, scrubber, signal }).catch((err: unknown) => {
      throw err instanceof PsqlError ? unreachable(target, err.stderr) : err;
    });

  if (input.mode === 'in_place') {
    await run('SELECT 1;', target.database);
    return false;
  }
  const exists = (await run("SELECT count(*) FROM pg_database WHERE datname = :'target';", MAINTENANCE_DB)) !== '0';
  if (!exists) return true;
  // Anything user-made counts: relations, functions, types and schemas beyond the default public one.
  const objects = await run(
    `WITH user_ns AS (
       SELECT oid, nspname FROM pg_namespace
       WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\\_%')
     SELECT (SELECT count(*) FROM pg_class c JOIN user_ns n ON n.oid = c.relnamespace)
          + (SELECT count(*) FROM pg_proc p JOIN user_ns n ON n.oid = p.pronamespace)
          + (SELECT count(*) FROM pg_type t JOIN user_ns n ON n.oid = t.typnamespace WHERE t.typtype IN ('e', 'd', 'r', 'm', 'c') AND t.typrelid = 0)
          + (SELECT count(*) FROM user_ns WHERE nspname <> 'public');`,
    target.database,
  );
  if (objects !== '0') {
    throw new UsageError(
      `The target database "${target.database}" already exists and is not empty; a new-database restore never writes into existing data.`,
      'Name a new database in --target, or replace this one with --in-place --confirm.',
    );
  }
  return false;
}

async function confirmInteractively(target: Target, ctx: Context): Promise<void> {
  const answer = await ctx.prompter.text(
    `In-place restore into ${redactedDsn(target)} replaces its current contents.\nType the database name "${target.database}" to confirm`,
    (value) => (value === target.database ? undefined : `Type exactly: ${target.database}`),
  );
  if (answer !== target.database) throw new UsageError('In-place restore not confirmed; nothing was changed.');
}

/** CREATE DATABASE ... TEMPLATE template0, not pg_restore --create (which would use the archive's name). */
export async function createTargetDatabase(target: Target, pgEnv: PgEnv, scrubber: SecretScrubber, signal: AbortSignal): Promise<void> {
  try {
    await psql('CREATE DATABASE :"target" TEMPLATE template0;', {
      env: pgEnv.env,
      database: MAINTENANCE_DB,
      vars: { target: target.database },
      scrubber,
      signal,
    });
  } catch (err) {
    if (err instanceof PsqlError) {
      throw new LocalToolError(`Could not create the database "${target.database}": ${err.stderr.split('\n')[0]}`, 'The user in --target needs the CREATEDB privilege.');
    }
    throw err;
  }
}
