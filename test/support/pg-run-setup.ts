/**
 * vitest globalSetup: the run directory of the PostgreSQL test clusters (PG_RUN_DIR_ENV). It holds
 * the run's initdb'd data dir, which startCluster() copies instead of running initdb, and one
 * cluster per worker slot (test/support/worker-cluster.ts), all stopped here at the end of the run.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PG_RUN_DIR_ENV, prepareRunTemplate } from './pg-cluster.js';
import { stopWorkerClusters, WORKER_PASSWORD_FILE } from './worker-cluster.js';

export default async function setup(): Promise<() => Promise<void>> {
  const runDir = await mkdtemp(join(tmpdir(), 'svc-pgrun-'));
  // postgres (the server's user when we are root) copies from the initdb'd dir inside.
  await chmod(runDir, 0o711);
  await writeFile(join(runDir, WORKER_PASSWORD_FILE), randomBytes(18).toString('base64url'), { mode: 0o600 });
  // Workers are forked after this and inherit it.
  process.env[PG_RUN_DIR_ENV] = runDir;
  const template = prepareRunTemplate().catch(() => {});
  return async () => {
    await template;
    await stopWorkerClusters(runDir);
    delete process.env[PG_RUN_DIR_ENV];
    await rm(runDir, { recursive: true, force: true });
  };
}
