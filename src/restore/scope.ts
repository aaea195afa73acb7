import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { addToExitNet } from '../exit-net.js';
import { OWNER_FILE, writeOwner, type OwnerRecord } from './owner.js';
import type { Target } from './target/target.js';

type Env = Record<string, string | undefined>;

/**
 * Temp dirs of live runs that must not outlive the process: the PGPASSFILE's (it holds the DSN
 * password) and the artifact's. A run removes its own in its finally; this is the net for an exit
 * that skips it, above all a second signal, which main.ts answers with process.exit at once. A dir
 * is in the net before it exists and stays there until it is really gone (cli-contract 7.15: a
 * second signal during clean-up still removes every password file, whatever the timing).
 */
const live = new Set<string>();

function removeLiveSync(): string[] {
  const left: string[] = [];
  for (const dir of live) {
    try {
      rmSync(dir, { recursive: true, force: true });
      live.delete(dir);
    } catch {
      left.push(dir);
    }
  }
  return left;
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

  /**
   * A private (0700) directory under `parent`, with an owner record (owner.json) by which a later
   * drill removes it should this process be killed before it does (cli-contract 9.12). Named here
   * rather than by mkdtemp, so that it is in the exit net before it exists.
   */
  async tempDir(parent: string, prefix: string, kind: OwnerRecord['kind'] = 'artifact'): Promise<string> {
    addToExitNet(removeLiveSync);
    for (;;) {
      const dir = join(parent, `${prefix}${randomBytes(6).toString('base64url').replace(/[-_]/g, 'x')}`);
      live.add(dir);
      try {
        await mkdir(dir, { mode: 0o700 });
      } catch (err) {
        live.delete(dir);
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw err;
      }
      this.#dirs.push(dir);
      await writeOwner(dir, kind);
      return dir;
    }
  }

  /** Leaves `dir` in place at dispose() (--keep-artifact), and no later run takes it for an orphan. */
  keep(dir: string): void {
    this.#kept.add(dir);
  }

  /**
   * Connection settings for libpq children (psql, pg_restore) through their environment only:
   * never argv, which any local user can read in `ps`. The URI's own settings become their PG*
   * variables; what it leaves out stays as the user's environment has it, which is where libpq
   * would look too (a URI without a host gets no PGHOST from svc: libpq's default socket, or the
   * user's PGHOST). A password from the DSN goes into a 0600 PGPASSFILE in a 0700 temp dir of this
   * scope; otherwise the user's own PGPASSWORD / ~/.pgpass apply.
   */
  async pgEnv(target: Target, baseEnv: Env): Promise<Env> {
    const env: Env = { ...baseEnv };
    // libpq ranks a service file above PG* variables, and PGHOSTADDR replaces the host's address:
    // either one from the user's shell would send the restore somewhere other than --target.
    delete env.PGSERVICE;
    delete env.PGHOSTADDR;
    Object.assign(env, target.params);
    env.PGDATABASE = target.database;
    // Never hang: with -w a missing password fails at once, and this bounds an unanswering server.
    env.PGCONNECT_TIMEOUT = target.params.PGCONNECT_TIMEOUT ?? baseEnv.PGCONNECT_TIMEOUT ?? '10';
    if (target.password === undefined) return env;

    delete env.PGPASSWORD;
    if (/[\r\n]/.test(target.password)) {
      // A .pgpass line ends at a newline and libpq strips a trailing CR, so such a password could
      // never match there. The child's environment is readable only by its own user (and root).
      env.PGPASSWORD = target.password;
      return env;
    }
    const line = ['*', '*', '*', pgpassField(target.user), pgpassField(target.password)].join(':');
    env.PGPASSFILE = await this.#privateFile('pgpass', `${line}\n`);
    return env;
  }

  /** A 0600 file in a new temp dir of this scope; a missing or full TMPDIR is the user's to fix, not a bug. */
  async #privateFile(name: string, content: string): Promise<string> {
    const parent = tmpdir();
    try {
      const file = join(await this.tempDir(parent, 'svc-pgpass-', 'pgpass'), name);
      await writeFile(file, content, { mode: 0o600 });
      return file;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new CliError('temp_dir_unusable', `Could not write the password file for the restore under ${parent} (${code}); nothing was restored.`);
    }
  }

  /**
   * Removes everything this scope made but what it was told to keep; safe to call twice. A dir
   * leaves the exit net only once it is gone: a second signal while rm runs still removes it.
   */
  async dispose(): Promise<void> {
    for (const dir of this.#dirs.splice(0)) {
      if (this.#kept.has(dir)) {
        await rm(join(dir, OWNER_FILE), { force: true });
      } else {
        await rm(dir, { recursive: true, force: true });
        if (existsSync(dir)) continue;
      }
      live.delete(dir);
    }
  }
}
