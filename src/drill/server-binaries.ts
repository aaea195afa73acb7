import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { LocalToolError } from '../errors.js';
import { installDirs, pathDirs } from '../restore/target/pg-install.js';

type Env = Record<string, string | undefined>;

/** The server programs a scratch cluster needs. */
const PROGRAMS = ['initdb', 'pg_ctl', 'postgres'] as const;

export interface ServerBinaries {
  dir: string;
  major: number;
  /** "15.18" */
  version: string;
  /** Where the directory came from, for the plan: "--pg-bindir", "pg_config --bindir", "the install directories", "PATH". */
  source: string;
}

const hasAll = (dir: string) => PROGRAMS.every((p) => existsSync(join(dir, p)));

async function versionOf(dir: string, env: Env): Promise<{ major: number; version: string } | undefined> {
  const r = await execa(join(dir, 'postgres'), ['--version'], { env, extendEnv: false, reject: false, stdin: 'ignore' });
  const m = r.exitCode === 0 ? /(\d+)(?:\.(\d+))?/.exec(String(r.stdout)) : null;
  return m ? { major: Number(m[1]), version: m[2] === undefined ? m[1]! : `${m[1]}.${m[2]}` } : undefined;
}

async function pgConfigBindir(env: Env): Promise<string | undefined> {
  const r = await execa('pg_config', ['--bindir'], { env, extendEnv: false, reject: false, stdin: 'ignore' }).catch(() => undefined);
  const dir = r?.exitCode === 0 ? String(r.stdout).trim() : '';
  return dir || undefined;
}

/**
 * The server binaries of a scratch cluster (cli-contract 9, step 2): --pg-bindir / SVC_PG_BINDIR
 * (exactly that directory), then `pg_config --bindir`, then the install directories (Debian's
 * /usr/lib/postgresql/<major>/bin newest first, /usr/local/pgsql/bin, Homebrew's, Postgres.app's),
 * then PATH. None is exit 11 saying how to install them, or to use --scratch <dsn>.
 */
export async function findServerBinaries(given: { dir: string; flag: string } | undefined, env: Env): Promise<ServerBinaries> {
  if (given) {
    const missing = PROGRAMS.filter((p) => !existsSync(join(given.dir, p)));
    // No server binaries is exit 11 however they were looked for (cli-contract 9.2).
    if (missing.length) {
      throw new LocalToolError(
        `${given.flag} ${given.dir} has no ${missing.join(', ')}: it must be the directory of the PostgreSQL server programs.`,
        'Point it at the directory that holds initdb, pg_ctl and postgres (Debian/Ubuntu: /usr/lib/postgresql/<major>/bin), or drill on a server of yours with --scratch postgresql://user@host/postgres.',
      );
    }
    const v = await versionOf(given.dir, env);
    if (!v) throw new LocalToolError(`${join(given.dir, 'postgres')} --version failed: the server binaries in ${given.flag} do not run here.`);
    return { dir: given.dir, ...v, source: given.flag };
  }
  const fromConfig = await pgConfigBindir(env);
  const candidates: Array<[string, string]> = [
    ...(fromConfig ? [[fromConfig, 'pg_config --bindir'] as [string, string]] : []),
    ...installDirs().map((d): [string, string] => [d, 'the install directories']),
    ...pathDirs(env).map((d): [string, string] => [d, 'PATH']),
  ];
  for (const [dir, source] of candidates) {
    if (!hasAll(dir)) continue;
    const v = await versionOf(dir, env);
    if (v) return { dir, ...v, source };
  }
  throw new LocalToolError(
    'No PostgreSQL server binaries (initdb, pg_ctl, postgres) were found for the scratch cluster: not in pg_config --bindir, /usr/lib/postgresql/*/bin, /usr/local/pgsql/bin, Homebrew, Postgres.app or PATH.',
    'Install them (Debian/Ubuntu: sudo apt-get install postgresql; macOS: brew install postgresql@17), point --pg-bindir (or SVC_PG_BINDIR) at them, or drill on a server of yours with --scratch postgresql://user@host/postgres.',
  );
}
