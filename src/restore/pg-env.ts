import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Target } from './target.js';
import { trackTempDir, untrackTempDir } from './temp-dirs.js';

/** Escapes a .pgpass field: backslash and colon (libpq docs, "The Password File"). */
function pgpassField(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/:/g, '\\:');
}

export interface PgEnv {
  env: Record<string, string | undefined>;
  /** Removes the temporary PGPASSFILE; safe to call twice. */
  dispose(): Promise<void>;
}

/**
 * Connection settings for libpq children (psql, pg_restore) through their environment only:
 * never argv, which any local user can read in `ps`. A password from the DSN goes into a 0600
 * PGPASSFILE in a 0700 temp dir, removed when the restore ends; otherwise the user's own
 * PGPASSWORD / ~/.pgpass apply as usual.
 */
export async function createPgEnv(target: Target, baseEnv: Record<string, string | undefined>): Promise<PgEnv> {
  const env: Record<string, string | undefined> = {
    ...baseEnv,
    ...target.params,
    PGHOST: target.host,
    PGPORT: String(target.port),
    PGUSER: target.user,
    PGDATABASE: target.database,
    // Never prompt: a missing password must fail, not hang a CI job.
    PGCONNECT_TIMEOUT: target.params.PGCONNECT_TIMEOUT ?? baseEnv.PGCONNECT_TIMEOUT ?? '10',
  };
  // libpq ranks a service file above PG* variables, and PGHOSTADDR replaces the host's address:
  // either one from the user's shell would send the restore somewhere other than --target.
  delete env.PGSERVICE;
  delete env.PGHOSTADDR;
  if (target.password === undefined) return { env, dispose: async () => {} };

  const dir = await mkdtemp(join(tmpdir(), 'svc-pgpass-'));
  trackTempDir(dir);
  const file = join(dir, 'pgpass');
  const line = ['*', '*', '*', pgpassField(target.user), pgpassField(target.password)].join(':');
  await writeFile(file, `${line}\n`, { mode: 0o600 });
  env.PGPASSFILE = file;
  delete env.PGPASSWORD;
  return {
    env,
    dispose: async () => {
      await rm(dir, { recursive: true, force: true });
      untrackTempDir(dir);
    },
  };
}
