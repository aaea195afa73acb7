/**
 * The scratch cluster's data directory and superuser: initdb (or the template it saves), and the
 * run's own password, set once the server is up.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { InterruptedError, LocalToolError } from '../errors.js';
import type { OsUser } from './os-user.js';
import type { ServerBinaries } from './server-binaries.js';
import type { Server } from './server-start.js';
import { noSpace, SPACE_HINT } from './space.js';
import { saveTemplate } from './template.js';

type Env = Record<string, string | undefined>;

export const SUPERUSER = 'postgres';

export function reachHint(user: OsUser | undefined): string {
  return user
    ? `The server runs as the ${user.name} user: it must be able to reach --work-dir (each directory above it searchable), e.g. --work-dir /tmp.`
    : 'Check --work-dir (the cluster lives there) and the server binaries (--pg-bindir).';
}

export async function initdbAndSave(
  server: Server,
  dataDir: string,
  template: string,
  user: OsUser | undefined,
  workDir: string,
  abort: AbortSignal,
): Promise<void> {
  await initdb(server, dataDir, user, workDir, abort);
  await saveTemplate(dataDir, template);
}

/**
 * initdb without a password (the data directory may become the template of later runs, which must
 * hold no secret: setPassword gives each run its own once the server is up).
 */
async function initdb(server: Server, dataDir: string, user: OsUser | undefined, workDir: string, abort: AbortSignal): Promise<void> {
  // A signal stops initdb (SIGTERM: it removes what it wrote) rather than wait for it to finish.
  const args = ['-D', dataDir, '-U', SUPERUSER, '--auth-host=scram-sha-256', '--auth-local=trust', '--encoding=UTF8', '--locale=C', '--no-sync'];
  const r = await server('initdb', args, abort);
  if (abort.aborted) throw new InterruptedError('Interrupted while the scratch cluster was starting.');
  if (r.exitCode !== 0) {
    const output = String(r.all ?? '').trim();
    const last = output.split('\n').slice(-3).join(' ');
    const full = await noSpace(workDir, output);
    throw new LocalToolError(`initdb of the scratch cluster failed (exit ${r.exitCode ?? r.signal}): ${full ?? last}`, full ? SPACE_HINT : reachHint(user));
  }
  // TCP from 127.0.0.1 with SCRAM only; the socket lives in the 0700 cluster directory, which only
  // svc's user (or root) can enter: trust there is what --keep tells a person to use.
  await writeFile(
    join(dataDir, 'pg_hba.conf'),
    ['# svc restore drill scratch cluster', 'local all all trust', 'host all all 127.0.0.1/32 scram-sha-256', ''].join('\n'),
  );
}

/**
 * The run's random password for TCP connections, set over the private socket (trust there): on
 * psql's stdin, never its argv. The server's own psql where its directory has one, else PATH's.
 */
export async function setPassword(binaries: ServerBinaries, socketDir: string, port: number, password: string, env: Env, abort: AbortSignal): Promise<void> {
  const own = join(binaries.dir, 'psql');
  const r = await execa(
    existsSync(own) ? own : 'psql',
    ['-X', '-q', '-w', '-v', 'ON_ERROR_STOP=1', '-h', socketDir, '-p', String(port), '-U', SUPERUSER, '-d', 'postgres'],
    {
      input: `ALTER ROLE ${SUPERUSER} PASSWORD '${password}';\n`,
      env: { PATH: env.PATH, LC_ALL: 'C' },
      extendEnv: false,
      reject: false,
      cancelSignal: abort,
    },
  );
  if (abort.aborted) throw new InterruptedError('Interrupted while the scratch cluster was starting.');
  if (r.exitCode !== 0)
    throw new LocalToolError(`The scratch cluster started, but its password could not be set: ${String(r.stderr).trim().split('\n')[0] ?? ''}`);
}
