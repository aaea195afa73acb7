import { access, constants, mkdir } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { refuseLinks } from '../output/user-file.js';
import { assertFreeSpace, assertWritableDir } from '../restore/download/workdir.js';
import { chooseIsolation, type Isolation } from './isolation.js';
import { reportPaths } from './report-files.js';
import type { DrillOptions } from './run-drill.js';
import { findServerBinaries, type ServerBinaries } from './server-binaries.js';

type Env = Record<string, string | undefined>;

/**
 * What is checked before the scratch cluster starts (cli-contract 9, step 2): the report and work
 * dirs, the server binaries, and how the cluster is isolated from svc (9.16); the client tools are
 * probed while it starts. What fails ends the run with its own code, before any createRestore.
 */
export async function preflight(opts: DrillOptions, env: Env, note: (text: string) => void): Promise<{ binaries?: ServerBinaries; isolation?: Isolation }> {
  if (opts.reportDir) {
    await mkdir(opts.reportDir, { recursive: true }).catch(() => undefined);
    try {
      await access(opts.reportDir, constants.W_OK | constants.X_OK);
    } catch {
      throw new UsageError(`--report ${opts.reportDir} cannot be created or written to.`, 'Name a writable directory for the report.');
    }
    await refuseLinks(reportPaths(opts.reportDir));
  }
  await assertWritableDir(opts.workDir);
  await assertFreeSpace(opts.workDir, 0);
  if (opts.scratch.kind !== 'auto') return {};
  const binaries = await findServerBinaries(opts.scratch.pgBindir, env);
  note(`Scratch server: PostgreSQL ${binaries.version} from ${binaries.dir} (${binaries.source}).`);
  const isolation = await chooseIsolation(opts.isolation, binaries.dir, opts.workDir, env, note);
  return { binaries, isolation };
}
