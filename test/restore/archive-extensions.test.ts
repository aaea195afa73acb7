/**
 * The archive's extensions against the target server (cli-contract 7, step 5): before pg_restore
 * touches the target, and before a new database is created, every extension the archive creates
 * must be in the target's pg_available_extensions, else exit 11 naming each missing one and the
 * target's server version, with nothing restored. A real dump of a database on Debian's PostgreSQL
 * 15 with `adminpack` and `old_snapshot` (both gone from PostgreSQL 17) and `citext` (still there),
 * restored with the built CLI into a PostgreSQL 17 server (the registry's, tools/pg-majors.mjs) and,
 * as the control, into the 15 it came from. Skips without a PostgreSQL server, except under CI.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pgServerBinDir } from '../../tools/pg-majors.mjs';
import { ensureBuilt } from '../support/built-cli.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { RestoreHarness, BACKUP_ID } from '../support/restore-harness.js';
import { artifactInfo, dumpDatabase, seedDatabase, type ArtifactInfo } from '../support/seed.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/archive-extensions.test.ts skipped: ${skip}`);

const GONE_IN_17 = ['adminpack', 'old_snapshot'];

describe.skipIf(!!skip)('an archive whose extensions the target server lacks', () => {
  // The source is Debian's 15 whatever SVC_TEST_PG_BINDIR says: it has the extensions 17 lacks.
  const h = new RestoreHarness();
  let v17: PgCluster;
  let dump: { path: string; info: ArtifactInfo; url: string };
  let seedInfo: ArtifactInfo;

  beforeAll(async () => {
    const saved = process.env.SVC_TEST_PG_BINDIR;
    delete process.env.SVC_TEST_PG_BINDIR;
    try {
      const [started, pg17] = await Promise.allSettled([h.start(), startCluster({ serverBinDir: pgServerBinDir(17) }), ensureBuilt()]);
      if (pg17.status === 'fulfilled') v17 = pg17.value;
      for (const r of [started, pg17]) if (r.status === 'rejected') throw r.reason;
    } finally {
      if (saved !== undefined) process.env.SVC_TEST_PG_BINDIR = saved;
    }
    seedInfo = h.info;
    await seedDatabase(h.cluster, 'with_extensions');
    await h.cluster.psql(`${[...GONE_IN_17, 'citext'].map((e) => `CREATE EXTENSION ${e};`).join(' ')}`, 'with_extensions');
    const path = join(h.scratch, 'with-extensions.pgdump');
    await dumpDatabase(h.cluster, 'with_extensions', path);
    const info = await artifactInfo(path);
    dump = { path, info, url: (await h.serve(path)).url };
  }, 300_000);
  afterAll(async () => {
    await Promise.allSettled([v17?.stop(), h.stop()]);
  });
  beforeEach(async () => {
    h.info = seedInfo;
    await h.reset();
    // getBackup and createRestore answer with the dump that has the extensions.
    h.info = dump.info;
    h.coords = { ...h.coords, presignedS3Url: dump.url, expectedSizeBytes: dump.info.sizeBytes, expectedSha256: dump.info.sha256 };
  });
  afterEach(() => h.expectNoSecretsLeft());

  it('the 15 server has all three extensions, the 17 server only citext', async () => {
    const available = (c: PgCluster) =>
      c.psql(`SELECT string_agg(name, ',' ORDER BY name) FROM pg_available_extensions WHERE name IN ('adminpack', 'old_snapshot', 'citext')`);
    expect(await available(h.cluster)).toBe('adminpack,citext,old_snapshot');
    expect(await available(v17)).toBe('citext');
    expect(
      createHash('sha256')
        .update(await readFile(dump.path))
        .digest('hex'),
    ).toBe(dump.info.sha256);
  });

  it('into PostgreSQL 17: exit 11 naming each missing extension and the server version; no database created, pg_restore never run', async () => {
    const workDir = await h.workDir();
    const version = await v17.psql('SHOW server_version');
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: { SVC_TARGET_DSN: v17.dsn('ext_on_17', true) } });
    expect(r.code).toBe(11);
    expect(r.stdout).toBe('');
    const line = /^error: (.*)$/m.exec(r.stderr)?.[1] ?? '';
    expect(line).toMatch(
      new RegExp(
        `^The archive creates extensions that postgresql://postgres@127\\.0\\.0\\.1:${v17.port}/ext_on_17 \\(PostgreSQL ${version.replace(/[.()]/g, '\\$&')}\\) does not have: (adminpack, old_snapshot|old_snapshot, adminpack)\\. Nothing was restored\\.$`,
      ),
    );
    expect(line).not.toContain('citext');
    expect(r.stderr).toContain('Install them on the target server (they must be listed in pg_available_extensions), or restore into a server that has them.');
    expect(`${r.stdout}${r.stderr}`).not.toContain(v17.password);
    expect(await v17.psql("SELECT count(*) FROM pg_database WHERE datname = 'ext_on_17'")).toBe('0');
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
  });

  it('into the PostgreSQL 15 it came from: restored, with its extensions', async () => {
    const workDir = await h.workDir();
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: { SVC_TARGET_DSN: h.dsn('ext_on_15', true) } });
    expect(r.code, r.stderr).toBe(0);
    expect(await h.cluster.psql("SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname <> 'plpgsql'", 'ext_on_15')).toBe(
      'adminpack,citext,old_snapshot',
    );
    expect(await h.cluster.psql('SELECT count(*) FROM orders', 'ext_on_15')).toBe('5000');
  });
});
