/**
 * vitest globalSetup: the run directory of the PostgreSQL test clusters (PG_RUN_DIR_ENV). It holds
 * the run's initdb'd data dir, which startCluster() copies instead of running initdb, and one
 * cluster per worker slot (test/support/worker-cluster.ts), all stopped here at the end of the run.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CACHE_HOME_ENV } from './built-cli.js';
import { PG_RUN_DIR_ENV, prepareRunTemplate } from './pg-cluster.js';
import { stopWorkerClusters, WORKER_PASSWORD_FILE } from './worker-cluster.js';

export default async function setup(): Promise<() => Promise<void>> {
  const runDir = await mkdtemp(join(tmpdir(), 'svc-pgrun-'));
  // postgres (the server's user when we are root) copies from the initdb'd dir inside.
  await chmod(runDir, 0o711);
  await writeFile(join(runDir, WORKER_PASSWORD_FILE), randomBytes(18).toString('base64url'), { mode: 0o600 });
  // Workers are forked after this and inherit it.
  process.env[PG_RUN_DIR_ENV] = runDir;
  // One cache directory for the run's svc processes (test/support/built-cli.ts, restore-harness.ts): a drill's
  // scratch cluster starts from the template the first drill saved, and each run of the built CLI from the
  // compiled code the first one kept, instead of an initdb and a compile per run. A test of either cache sets its own.
  const cache = join(runDir, 'xdg-cache');
  await mkdir(cache, { mode: 0o700 });
  process.env[CACHE_HOME_ENV] = cache;
  const template = prepareRunTemplate().catch(() => {});
  return async () => {
    await template;
    await stopWorkerClusters(runDir);
    delete process.env[PG_RUN_DIR_ENV];
    delete process.env[CACHE_HOME_ENV];
    await rm(runDir, { recursive: true, force: true });
  };
}
