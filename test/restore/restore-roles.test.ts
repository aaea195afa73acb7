/**
 * `restore create` and the rights of the target (cli-contract 7.12 and 7.14), with the built CLI and
 * real clusters:
 * - an archive whose policies say `TO authenticated` (Supabase's pattern), dumped from another
 *   cluster, into a server without that role: exit 11 after download and verify (where the archive
 *   is read), before CREATE DATABASE, naming each missing role and the statement that needs it;
 * - a target whose role is a superuser draws the warning that the backup's code will run with
 *   superuser rights, on stderr and in --json's execution.warnings; a target role that is not a
 *   superuser draws none.
 * Skips without a PostgreSQL server, except under CI.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/built-cli.js';
import { dumpOf, SUPABASE_SQL } from '../support/hostile-archive.js';
import { pgSkipReason, startCluster } from '../support/pg-cluster.js';
import { BACKUP_ID, DSN_PASSWORD, RestoreHarness } from '../support/restore-harness.js';
import { artifactInfo, type ArtifactInfo } from '../support/seed.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/restore-roles.test.ts skipped: ${skip}`);

const SUPERUSER_WARNING =
  /^warning: The role "postgres" is a superuser on postgresql:\/\/postgres@127\.0\.0\.1:\d+\/\w+: code in the backup \(functions its constraints, defaults, indexes and triggers call\) will run with superuser rights on that server\./m;

describe.skipIf(!!skip)('restore create and the roles of the target', { timeout: 120_000 }, () => {
  const h = new RestoreHarness();
  let seedInfo: ArtifactInfo;
  let supabase: { info: ArtifactInfo; url: string };

  beforeAll(async () => {
    const [started, source] = await Promise.all([h.start(), startCluster(), ensureBuilt()]);
    try {
      const path = join(started.scratch, 'supabase.pgdump');
      await dumpOf(source, 'supabase', SUPABASE_SQL, path);
      supabase = { info: await artifactInfo(path), url: (await h.serve(path)).url };
    } finally {
      await source.stop();
    }
    seedInfo = h.info;
    await h.cluster.psql(`CREATE ROLE restorer LOGIN CREATEDB PASSWORD '${DSN_PASSWORD.replaceAll("'", "''")}'`);
  }, 300_000);
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    h.info = seedInfo;
    await h.reset();
  });
  afterEach(() => h.expectNoSecretsLeft());

  const serveSupabase = () => {
    h.info = supabase.info;
    h.coords = { ...h.coords, presignedS3Url: supabase.url, expectedSizeBytes: supabase.info.sizeBytes, expectedSha256: supabase.info.sha256 };
  };

  it('a server without the roles the policies name: exit 11 naming authenticated, anon and "b c" and their statements; the database is not created', async () => {
    serveSupabase();
    const workDir = await h.workDir();
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: { SVC_TARGET_DSN: h.dsn('roles_missing', true) } });
    expect(r.code, r.stderr).toBe(11);
    expect(r.stdout).toBe('');
    const line = /^error: (.*)$/m.exec(r.stderr)?.[1] ?? '';
    expect(line).toContain(`The archive names roles that ${h.redacted('roles_missing')} does not have: `);
    expect(line).toContain('authenticated (policy "read profiles" on public.profiles)');
    expect(line).toContain('anon (policy "guarded" on public.profiles, function public.as_anon())');
    expect(line).toContain('b c (policy "guarded" on public.profiles)');
    expect(line).toMatch(/Nothing was restored\.$/);
    expect(r.stderr).toContain('CREATE ROLE authenticated NOLOGIN');
    expect(r.stderr).toContain('or restore into a server that has them');
    // Download and verify ran (the archive was read); CREATE DATABASE and pg_restore did not.
    expect(h.allArtifactRequests().length).toBeGreaterThan(0);
    expect(await h.databaseExists('roles_missing')).toBe(false);
    expect(await h.pgRestoreRuns()).toEqual([]);
  });

  it('with the roles there, the same archive restores, its policies in place', async () => {
    await h.cluster.psql('CREATE ROLE authenticated NOLOGIN; CREATE ROLE anon NOLOGIN; CREATE ROLE "b c" NOLOGIN;');
    try {
      serveSupabase();
      const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir()], {
        env: { SVC_TARGET_DSN: h.dsn('roles_there', true) },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(
        await h.cluster.psql("SELECT string_agg(policyname || ':' || array_to_string(roles, ','), ' ' ORDER BY policyname) FROM pg_policies", 'roles_there'),
      ).toBe('guarded:anon,b c read profiles:authenticated');
    } finally {
      await h.dropDatabase('roles_there');
      await h.cluster.psql('DROP ROLE authenticated; DROP ROLE anon; DROP ROLE "b c";');
    }
  });

  it("a superuser target: a warning that the backup's code runs with superuser rights, on stderr and in --json execution.warnings", async () => {
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir(), '--json'], {
      env: { SVC_TARGET_DSN: h.dsn('as_superuser', true) },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(SUPERUSER_WARNING);
    const doc = JSON.parse(r.stdout) as { execution: { warnings: string[] } };
    expect(doc.execution.warnings).toEqual([
      expect.stringMatching(/^The role "postgres" is a superuser on .*: code in the backup .* will run with superuser rights on that server\./),
    ]);
    await h.dropDatabase('as_superuser');
  });

  it('a target role that is not a superuser: no warning, and an empty execution.warnings', async () => {
    const dsn = h.dsn('as_restorer', true).replace('postgres:', 'restorer:');
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir(), '--json'], { env: { SVC_TARGET_DSN: dsn } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/superuser/);
    expect((JSON.parse(r.stdout) as { execution: { warnings: string[] } }).execution.warnings).toEqual([]);
    await h.dropDatabase('as_restorer');
  });
});
