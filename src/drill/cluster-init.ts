/**
 * The scratch cluster's data directory and superuser: initdb (or the template it saves), and the
 * run's own password, set once the server is up.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InterruptedError, LocalToolError } from '../errors.js';
import { quoteIdent, quoteLiteral } from '../pg/quote.js';
import { withSession, type SessionConfig } from '../pg/session.js';
import type { OsUser } from './os-user.js';
import type { Server } from './server-start.js';
import { scramVerifier } from './scram.js';
import { noSpace, SPACE_HINT } from './space.js';
import { saveTemplate } from './template.js';

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
 * The run's random password for TCP connections, set over the private socket (trust there) in a
 * session of svc's own: no psql to start, and the server is sent the password's SCRAM verifier, never
 * the password.
 */
export async function setPassword(socketDir: string, port: number, password: string, abort: AbortSignal): Promise<void> {
  const config: SessionConfig = {
    host: socketDir,
    port,
    user: SUPERUSER,
    database: 'postgres',
    password: undefined,
    ssl: false,
    plainFallback: false,
    bounds: null,
  };
  try {
    await withSession(config, abort, (client) => client.query(`ALTER ROLE ${quoteIdent(SUPERUSER)} PASSWORD ${quoteLiteral(scramVerifier(password))}`));
  } catch (err) {
    if (abort.aborted) throw new InterruptedError('Interrupted while the scratch cluster was starting.');
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new LocalToolError(`The scratch cluster started, but its password could not be set: ${reason}`);
  }
}
