import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Target } from './target.js';

type Env = Record<string, string | undefined>;

/**
 * Temp dirs of live runs that must not outlive the process: the PGPASSFILE's (it holds the DSN
 * password) and the artifact's. A run removes its own in its finally; this is the net for an exit
 * that skips it, above all a second signal, which main.ts answers with process.exit at once.
 */
const live = new Set<string>();
let hooked = false;

function removeLiveSync(): void {
  for (const dir of live) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort while the process goes down.
    }
  }
  live.clear();
}

/** Escapes a .pgpass field: backslash and colon (libpq docs, "The Password File"). */
function pgpassField(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/:/g, '\\:');
}

/**
 * What one restore run leaves on disk, owned in one place: made here, removed by dispose() in the
 * run's finally (whatever failed, whichever signal arrived), and by the exit net above otherwise.
 */
export class RunScope {
  readonly #dirs: string[] = [];
  readonly #kept = new Set<string>();

  /** A private (0700) directory under `parent`. */
  async tempDir(parent: string, prefix: string): Promise<string> {
    const dir = await mkdtemp(join(parent, prefix));
    this.#dirs.push(dir);
    live.add(dir);
    if (!hooked) {
      hooked = true;
      process.on('exit', removeLiveSync);
    }
    return dir;
  }

  /** Leaves `dir` in place at dispose() (--keep-artifact). */
  keep(dir: string): void {
    this.#kept.add(dir);
  }

  /**
   * Connection settings for libpq children (psql, pg_restore) through their environment only:
   * never argv, which any local user can read in `ps`. A password from the DSN goes into a 0600
   * PGPASSFILE in a 0700 temp dir of this scope; otherwise the user's own PGPASSWORD / ~/.pgpass apply.
   */
  async pgEnv(target: Target, baseEnv: Env): Promise<Env> {
    const env: Env = {
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
    if (target.password === undefined) return env;

    const dir = await this.tempDir(tmpdir(), 'svc-pgpass-');
    const file = join(dir, 'pgpass');
    const line = ['*', '*', '*', pgpassField(target.user), pgpassField(target.password)].join(':');
    await writeFile(file, `${line}\n`, { mode: 0o600 });
    env.PGPASSFILE = file;
    delete env.PGPASSWORD;
    return env;
  }

  /** Removes everything this scope made but what it was told to keep; safe to call twice. */
  async dispose(): Promise<void> {
    for (const dir of this.#dirs.splice(0)) {
      live.delete(dir);
      if (!this.#kept.has(dir)) await rm(dir, { recursive: true, force: true });
    }
  }
}
