/**
 * Source databases of other shapes for the restore tests, dumped in any pg_dump format and served
 * by the restore harness as the backup's artifact (getBackup and createRestore answer with it).
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { clientEnv, type PgCluster } from './pg-cluster.js';
import type { RestoreHarness } from './restore-harness.js';
import { artifactInfo, type ArtifactInfo } from './seed.js';

export type DumpFormat = 'custom' | 'tar' | 'plain' | 'directory';

/** pg_dump of `database` in `format` (the client tools of the machine, against the harness's server). */
export async function dumpAs(cluster: PgCluster, database: string, out: string, format: DumpFormat): Promise<void> {
  // As pg_dump runs by default: in the database's own encoding (a SQL_ASCII database's bytes do not convert to UTF8).
  const { PGCLIENTENCODING: _, ...env } = clientEnv(cluster);
  const r = await execa(join(cluster.binDir, 'pg_dump'), [`--format=${format}`, '-w', '-d', database, '-f', out], {
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  if (r.exitCode !== 0) throw new Error(`pg_dump --format=${format} of ${database} failed: ${String(r.stderr)}`);
}

export interface ServedDump {
  path: string;
  info: ArtifactInfo;
  url: string;
}

/** Serves `path` and returns what `useDump` needs (a file of any format: only custom archives carry header versions). */
export async function serveDump(h: RestoreHarness, path: string): Promise<ServedDump> {
  const custom = (await readFile(path)).subarray(0, 11);
  const info =
    custom.subarray(0, 5).toString('latin1') === 'PGDMP' && custom[10] === 1
      ? await artifactInfo(path)
      : {
          sizeBytes: (await stat(path)).size,
          sha256: createHash('sha256')
            .update(await readFile(path))
            .digest('hex'),
          pgDumpVersion: '',
          archiveFormatVersion: '',
        };
  return { path, info, url: (await h.serve(path)).url };
}

/** After h.reset(): getBackup and createRestore answer with this dump. */
export function useDump(h: RestoreHarness, dump: ServedDump): void {
  h.info = dump.info;
  h.coords = { ...h.coords, presignedS3Url: dump.url, expectedSizeBytes: dump.info.sizeBytes, expectedSha256: dump.info.sha256 };
}
