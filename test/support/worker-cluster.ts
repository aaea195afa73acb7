/**
 * One PostgreSQL cluster per vitest worker slot (VITEST_POOL_ID): the first test file of a slot that
 * asks starts it, the next files of that slot take it over, and pg-run-setup.ts stops it at the end
 * of the run. Files of one slot run one after another, so a file has the cluster to itself; when it
 * gives it back (stop()), every database, role and tablespace it made is dropped and server and role
 * settings are reset, so the next file finds what a fresh cluster has. Outside a vitest run, or when
 * the slot's cluster is taken (a file asking twice), this is startCluster().
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  alive,
  clusterAt,
  PG_RUN_DIR_ENV,
  runningPostmaster,
  startCluster,
  stopClusterAt,
  sqlLiteral,
  type ClusterAddress,
  type PgCluster,
  type ReachedCluster,
} from './pg-cluster.js';

/** In the run dir: postgres's password while no file holds a slot's cluster. */
export const WORKER_PASSWORD_FILE = 'worker-password';

const stateFile = (runDir: string, slot: string) => join(runDir, `worker-${slot}.json`);

/** What a fresh cluster has: the files' databases, roles, tablespaces and settings go. Runs on template1. */
const RESET_SQL = `SET log_statement = 'none';
-- A reset that waits on something a file left behind fails instead, and the slot's next file starts a fresh cluster.
SET lock_timeout = '10s';
SET statement_timeout = '20s';
SELECT format('DROP DATABASE %I WITH (FORCE)', datname) FROM pg_database WHERE datname NOT IN ('template0', 'template1') \\gexec
CREATE DATABASE postgres TEMPLATE template0;
SELECT format('DROP TABLESPACE %I', spcname) FROM pg_tablespace WHERE spcname NOT IN ('pg_default', 'pg_global') \\gexec
SELECT format('DROP ROLE %I', rolname) FROM pg_roles WHERE rolname <> 'postgres' AND rolname !~ '^pg_' \\gexec
ALTER SYSTEM RESET ALL;
SELECT pg_reload_conf();
ALTER ROLE postgres RESET ALL;
`;

/** The slot's lock, a directory holding the pid of the process that uses the cluster; false when a live process holds it. */
function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
  } catch {
    const holder = Number(existsSync(join(lock, 'pid')) ? readFileSync(join(lock, 'pid'), 'utf8') : '0');
    if (holder && alive(holder)) return false;
  }
  writeFileSync(join(lock, 'pid'), String(process.pid));
  return true;
}

/** The slot's running cluster, reached with the workers' password; undefined (and whatever is left of it gone) when there is none. */
async function adopt(runDir: string, slot: string, password: string): Promise<ReachedCluster | undefined> {
  const file = stateFile(runDir, slot);
  if (!existsSync(file)) return undefined;
  const address = JSON.parse(readFileSync(file, 'utf8')) as Omit<ClusterAddress, 'password'>;
  rmSync(file);
  if (runningPostmaster(address.dataDir)) {
    const cluster = clusterAt({ ...address, password }, () => Promise.resolve());
    const reachable = await cluster.psql('SELECT 1').then(
      () => true,
      () => false,
    );
    if (reachable) {
      writeFileSync(file, JSON.stringify(address));
      return cluster;
    }
  }
  await stopClusterAt(address.dataDir).catch(() => {});
  return undefined;
}

/**
 * The cluster of this worker slot. `serverBinDir`: server binaries of another major (the harness under
 * SVC_TEST_PG_BINDIR); a slot keeps one cluster per binary directory.
 */
export async function workerCluster(opts: { password?: string; serverBinDir?: string; log?: (line: string) => void } = {}): Promise<PgCluster> {
  const runDir = process.env[PG_RUN_DIR_ENV];
  const pool = process.env.VITEST_POOL_ID;
  const password = opts.password ?? randomBytes(18).toString('base64url');
  if (!runDir || !pool || !existsSync(runDir)) return startCluster({ ...opts, password });
  const slot = opts.serverBinDir ? `${pool}-${createHash('sha256').update(opts.serverBinDir).digest('hex').slice(0, 12)}` : pool;
  const lock = join(runDir, `worker-${slot}.lock`);
  if (!takeLock(lock)) return startCluster({ ...opts, password });
  const workersPassword = readFileSync(join(runDir, WORKER_PASSWORD_FILE), 'utf8');
  try {
    let reached = await adopt(runDir, slot, workersPassword);
    if (!reached) {
      const started = await startCluster({ password: workersPassword, detached: true, serverBinDir: opts.serverBinDir, log: opts.log });
      const { port, binDir, serverBinDir, dataDir, serverMajor } = started;
      const address = { port, binDir, serverBinDir, dataDir, serverMajor };
      writeFileSync(stateFile(runDir, slot), JSON.stringify(address));
      reached = clusterAt({ ...address, password: workersPassword }, () => Promise.resolve());
    }
    const cluster = reached;
    await cluster.changePassword(password);
    let released: Promise<void> | undefined;
    const release = async (): Promise<void> => {
      try {
        await cluster.psql(`${RESET_SQL}ALTER ROLE postgres PASSWORD ${sqlLiteral(workersPassword)};`, 'template1');
        // What a file put beside the data dir (a tablespace's directory) goes with it, as with a cluster of its own.
        const baseDir = dirname(cluster.dataDir);
        for (const name of readdirSync(baseDir)) {
          if (name !== 'data' && name !== 'server.log' && !name.startsWith('.s.PGSQL.')) rmSync(join(baseDir, name), { recursive: true, force: true });
        }
      } catch {
        // Not back to a fresh state: the next file of the slot starts a cluster of its own.
        rmSync(stateFile(runDir, slot), { force: true });
        await stopClusterAt(cluster.dataDir).catch(() => {});
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    };
    return clusterAt({ ...cluster, password }, () => (released ??= release()));
  } catch (err) {
    rmSync(lock, { recursive: true, force: true });
    throw err;
  }
}

/** At the end of the run: every slot's cluster. */
export async function stopWorkerClusters(runDir: string): Promise<void> {
  const states = readdirSync(runDir).filter((n) => /^worker-.+\.json$/.test(n));
  await Promise.all(
    states.map(async (n) => {
      const { dataDir } = JSON.parse(readFileSync(join(runDir, n), 'utf8')) as ClusterAddress;
      await stopClusterAt(dataDir).catch(() => {});
    }),
  );
}
