import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findPgBinDir, pgSkipReason } from '../support/pg-cluster.js';
import {
  API_TOKEN,
  BACKUP_ID,
  DSN_PASSWORD,
  LOCK_TOKEN,
  useRestoreHarness,
  SEED_FIXTURE,
  SERVER_BINDIR_ENV,
  SOURCE_DB,
  toolMajor,
} from '../support/restore-harness.js';
import { artifactInfo } from '../support/seed.js';
import { asWrittenBy } from '../support/archive-versions.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore-pg/new-database.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('restore create / restore run, new_database, against a real PostgreSQL', () => {
  const h = useRestoreHarness();

  const create = (database: string, workDir: string, ...extra: string[]) =>
    h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, ...extra], { env: { SVC_TARGET_DSN: h.dsn(database, true) } });

  /** What every successful new_database restore must leave behind. */
  async function expectRestored(database: string, workDir: string): Promise<void> {
    expect(await h.snapshot(database)).toEqual(h.source);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
    const runs = await h.pgRestoreRuns();
    expect(runs).toHaveLength(1);
    for (const run of runs) {
      expect(run.argv).not.toContain(DSN_PASSWORD);
      expect(run.cmdline).not.toContain(DSN_PASSWORD);
      expect(run.cmdline).not.toContain(encodeURIComponent(DSN_PASSWORD));
    }
    for (const req of h.allArtifactRequests()) expect(req.headers.authorization).toBeUndefined();
  }

  it(`runs against the server ${SERVER_BINDIR_ENV} names (the machine's when unset), with the machine's client tools`, async () => {
    const serverBinDir = process.env[SERVER_BINDIR_ENV] || findPgBinDir()!;
    expect(h.cluster.serverBinDir).toBe(serverBinDir);
    const built = /\(PostgreSQL\) (\S+)/.exec((await execa(join(serverBinDir, 'postgres'), ['--version'])).stdout)![1]!;
    expect(await h.cluster.psql('SHOW server_version')).toMatch(new RegExp(`^${built.replaceAll('.', '\\.')}\\b`));
    expect(h.cluster.serverMajor).toBe(Number(built.split('.')[0]));
    expect(h.realPgRestore).toBe(join(findPgBinDir()!, 'pg_restore'));
    // pg_dump dumps no server newer than itself: then the committed seed archive stands in.
    const pgDumpMajor = await toolMajor(join(h.cluster.binDir, 'pg_dump'));
    expect(h.dumpOrigin).toBe(h.cluster.serverMajor <= pgDumpMajor ? 'server under test' : 'committed fixture');
  });

  it('an archive of a PostgreSQL 15 server (the committed seed) restores equal to the source on every major, 14 (older than its source) included', async () => {
    expect((await readFile(SEED_FIXTURE)).subarray(0, 5).toString('latin1')).toBe('PGDMP');
    const info = await artifactInfo(SEED_FIXTURE);
    expect(info.pgDumpVersion).toMatch(/^15\./);
    const served = await h.serve(SEED_FIXTURE);
    h.coords = { ...h.coords, presignedS3Url: served.url, expectedSizeBytes: info.sizeBytes, expectedSha256: info.sha256 };
    const workDir = await h.workDir();
    const r = await create('restored_from_pg15', workDir);
    expect(r.code, r.stderr).toBe(0);
    expect(served.requests).toHaveLength(1);
    await expectRestored('restored_from_pg15', workDir);
  });

  it('creates the target, restores it equal to the source, and prints only the contract document with --json', async () => {
    const workDir = await h.workDir();
    const r = await create('restored_json', workDir, '--json');
    expect(r.code, r.stderr).toBe(0);

    const [req, ...more] = h.createRestoreRequests();
    expect(more).toHaveLength(0);
    expect(JSON.parse(req!.body)).toStrictEqual({
      backupJobId: BACKUP_ID,
      targetRedactedDsn: `postgresql://postgres@127.0.0.1:${h.cluster.port}/restored_json`,
      mode: 'new_database',
      confirmDestructive: false,
    });
    expect(req!.headers.get('idempotency-key')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(req!.headers.get('authorization')).toBe(`Bearer ${API_TOKEN}`);
    expect(h.api.unhandled).toEqual([]);

    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc).sort()).toEqual(['backupCompletedAt', 'backupSelection', 'backupStartedAt', 'execution', 'restoreJob']);
    expect(doc.backupSelection).toMatchObject({ rule: 'id', backupJobId: BACKUP_ID });
    expect(doc.restoreJob).toEqual(h.restoreBody('new_database').restoreJob);
    expect(doc.execution).toStrictEqual({
      artifactBytes: h.info.sizeBytes,
      sha256: h.info.sha256,
      verified: true,
      pgRestoreExitCode: 0,
      durationMs: expect.any(Number),
      // The target's role is the cluster's superuser (cli-contract 7.14).
      warnings: [expect.stringContaining('will run with superuser rights on that server')],
      // Contract v2: the receipt rides along in --json too.
      receipt: expect.objectContaining({
        restoreJobId: 'rj_restorepg',
        backupJobId: BACKUP_ID,
        mode: 'new_database',
        targetRedactedDsn: `postgresql://postgres@127.0.0.1:${h.cluster.port}/restored_json`,
        artifact: { bytes: h.info.sizeBytes, expectedSha256: h.info.sha256, computedSha256: h.info.sha256, verified: true },
        connections: 1,
        outcome: 'restored',
        failure: null,
      }),
    });
    // getBackup came first, so the disk check knew the artifact's size before any job existed.
    expect(h.api.exchanges.map((e) => `${e.method} ${e.url.pathname}`)).toEqual([`GET /api/v1/backups/${BACKUP_ID}`, 'POST /api/v1/restores']);
    expect(r.stdout).not.toContain(LOCK_TOKEN);
    expect(r.stdout).not.toContain(h.artifact.url);

    // One plain GET of the presigned URL, with no credentials of ours.
    expect(h.artifact.requests.map((q) => [q.method, q.status, q.headers.range])).toEqual([['GET', 200, undefined]]);
    expect(h.artifact.requests[0]!.headers.authorization).toBeUndefined();

    expect(await h.databaseExists('restored_json')).toBe(true);
    await expectRestored('restored_json', workDir);
    const [run] = await h.pgRestoreRuns();
    const jobs = Math.min(availableParallelism(), 4);
    expect(run!.argv.split(' ').slice(0, -1)).toEqual([
      // --verbose: one line per object, which svc reads for its progress.
      '--verbose',
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      ...(jobs > 1 ? [`--jobs=${jobs}`] : []),
      "--dbname=dbname='restored_json'",
    ]);
    expect(run!.argv).toMatch(new RegExp(`${workDir}/svc-restore-[^/ ]+/artifact\\.dump$`));
    // The password from SVC_TARGET_DSN reached pg_restore through a 0600 PGPASSFILE, since removed.
    expect(run!.pgpass).toMatch(new RegExp(`^${h.tmp}/svc-pgpass-[^/ ]+/pgpass 600\\s*$`));
  });

  it('human output: --target without a password, PGPASSWORD supplies it quietly; --idempotency-key is sent as given', async () => {
    const workDir = await h.workDir();
    const r = await h.cli(
      ['restore', 'create', '--backup', BACKUP_ID, '--target', h.dsn('restored_human'), '--work-dir', workDir, '--idempotency-key', 'restore-2026-11-21'],
      { env: { PGPASSWORD: DSN_PASSWORD } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Restored backup ${BACKUP_ID} of db_orders into ${h.redacted('restored_human')} (new database)`);
    expect(r.stdout).toContain(h.info.sha256);
    expect(r.stdout).toMatch(/pg_restore exit code:?\s+0/);
    expect(r.stdout).toContain('rj_restorepg');
    expect(r.stderr).toContain('Created database "restored_human" (TEMPLATE template0, UTF8, libc C).');
    expect(r.stderr).toContain('Restore job rj_restorepg created (new_database).');
    expect(
      r.stderr.split('\n').filter((l) => /warning/i.test(l)),
      'the only warning: a superuser target (cli-contract 7.14)',
    ).toEqual([expect.stringMatching(/^warning: The role "postgres" is a superuser on /)]);
    expect(h.createRestoreRequests()[0]!.headers.get('idempotency-key')).toBe('restore-2026-11-21');
    await expectRestored('restored_human', workDir);
    // No password in the DSN: no PGPASSFILE of ours, the user's PGPASSWORD applies as usual.
    expect((await h.pgRestoreRuns())[0]!.pgpass).toBe('none  PGPASSWORD-set');
  });

  it('a password inside --target works but draws the argv warning; pg_restore still never sees it', async () => {
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--target', h.dsn('restored_argv', true), '--work-dir', workDir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: The password in --target is visible to other local users/);
    expect(JSON.parse(h.createRestoreRequests()[0]!.body).targetRedactedDsn).toBe(h.redacted('restored_argv'));
    await expectRestored('restored_argv', workDir);
  });

  it('refuses an existing non-empty database before createRestore (exit 7, a precondition), and leaves it alone', async () => {
    const workDir = await h.workDir();
    const r = await create(SOURCE_DB, workDir);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`The target database "${SOURCE_DB}" already exists and is not empty`);
    expect(r.stderr).toContain('--in-place --confirm');
    expect(h.api.exchanges).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.snapshot(SOURCE_DB)).toEqual(h.source);
    expect(await h.pgpassLeftovers()).toEqual([]);
  });

  it.each([
    ['a function', 'CREATE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT 42 $$;'],
    ['an enum type', "CREATE TYPE mood AS ENUM ('ok', 'sad');"],
    ['a schema', 'CREATE SCHEMA reporting;'],
  ])('counts a database holding only %s as not empty (exit 7, nothing sent)', async (_what, ddl) => {
    await h.dropDatabase('only_objects');
    await h.cluster.psql('CREATE DATABASE only_objects TEMPLATE template0');
    await h.cluster.psql(ddl, 'only_objects');
    const workDir = await h.workDir();
    const r = await create('only_objects', workDir);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('already exists and is not empty');
    expect(h.api.exchanges).toEqual([]);
  });

  it('restores into an existing empty database without creating it', async () => {
    await h.dropDatabase('existing_empty');
    await h.cluster.psql('CREATE DATABASE existing_empty TEMPLATE template0');
    const workDir = await h.workDir();
    const r = await create('existing_empty', workDir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Created database');
    expect(JSON.parse(h.createRestoreRequests()[0]!.body).mode).toBe('new_database');
    await expectRestored('existing_empty', workDir);
  });

  it('a role that may not CONNECT to postgres creates the target from template1, as createdb does', async () => {
    // Same password as the harness's DSN, so the secret scan covers this role's too.
    const role = 'restorer_no_postgres';
    const password = DSN_PASSWORD.replaceAll("'", "''");
    await h.dropDatabase('restored_by_role');
    await h.cluster.psql(
      `DROP ROLE IF EXISTS ${role}; CREATE ROLE ${role} LOGIN CREATEDB PASSWORD '${password}'; REVOKE CONNECT ON DATABASE postgres FROM PUBLIC;`,
    );
    try {
      const dsn = `postgresql://${role}:${encodeURIComponent(DSN_PASSWORD)}@127.0.0.1:${h.cluster.port}/restored_by_role`;
      // The premise: this role cannot open postgres.
      const direct = await execa(join(h.cluster.binDir, 'psql'), ['-X', '-w', '-c', 'select 1'], {
        env: { PGHOST: '127.0.0.1', PGPORT: String(h.cluster.port), PGUSER: role, PGPASSWORD: DSN_PASSWORD, PGDATABASE: 'postgres' },
        reject: false,
      });
      expect(direct.stderr).toContain('permission denied for database "postgres"');

      const workDir = await h.workDir();
      const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir], { env: { SVC_TARGET_DSN: dsn } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('Created database "restored_by_role" (TEMPLATE template0, UTF8, libc C).');
      expect(await h.cluster.psql(`SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'restored_by_role'`)).toBe(role);
      const restored = await h.snapshot('restored_by_role');
      expect(restored.description).toEqual(h.source.description);
      expect(restored.rows).toEqual(h.source.rows);
      expect(await h.pgpassLeftovers()).toEqual([]);
    } finally {
      await h.dropDatabase('restored_by_role');
      await h.cluster.psql(`GRANT CONNECT ON DATABASE postgres TO PUBLIC; DROP ROLE IF EXISTS ${role};`);
    }
  });

  it.each(['postgres', 'template1', 'template0'])('refuses the system database %s before anything else (exit 2)', async (db) => {
    const before = await h.snapshot('postgres');
    const workDir = await h.workDir();
    const r = await create(db, workDir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Refusing to restore into the system database "${db}"`);
    expect(h.api.exchanges).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.snapshot('postgres')).toEqual(before);
  });

  it('restore run: the createRestore body on stdin, no API call, same engine and --json document', async () => {
    const workDir = await h.workDir();
    const body = h.restoreBody('new_database');
    const r = await h.cli(['restore', 'run', '--work-dir', workDir, '--json'], {
      stdin: JSON.stringify(body),
      env: { SVC_TARGET_DSN: h.dsn('restored_run', true), SVC_API_KEY: undefined },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(h.api.exchanges).toEqual([]);
    const doc = JSON.parse(r.stdout);
    expect(doc.restoreJob).toEqual(body.restoreJob);
    expect(doc.execution).toStrictEqual({
      artifactBytes: h.info.sizeBytes,
      sha256: h.info.sha256,
      verified: true,
      pgRestoreExitCode: 0,
      durationMs: expect.any(Number),
      warnings: [expect.stringContaining('will run with superuser rights on that server')],
      // restore run never sees the backup job: the receipt says so rather than guess.
      receipt: expect.objectContaining({ restoreJobId: 'rj_restorepg', backupJobId: null, outcome: 'restored' }),
    });
    await expectRestored('restored_run', workDir);
  });

  it.each([
    ['not JSON', 'restoreJob: {', /Standard input is not JSON/],
    ['JSON of another shape', '{"restoreJob":{}}', /Standard input is not a createRestore response: restoreJob\./],
    ['empty', '', /Standard input is not JSON/],
  ])('restore run with malformed stdin (%s) is exit 2 and touches nothing', async (_what, stdin, message) => {
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'run', '--work-dir', workDir], { stdin, env: { SVC_TARGET_DSN: h.dsn('never_created', true) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(h.api.exchanges).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.databaseExists('never_created')).toBe(false);
  });

  it('restore run: a body with a bad field is exit 2 and never echoes its lock token or URL', async () => {
    const body = h.restoreBody('new_database');
    body.execution.expectedSha256 = 'not-a-digest';
    const r = await h.cli(['restore', 'run', '--work-dir', await h.workDir()], {
      stdin: JSON.stringify(body),
      env: { SVC_TARGET_DSN: h.dsn('never_created', true) },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('execution.expectedSha256');
    expect(h.artifact.requests).toEqual([]);
    expect(await h.databaseExists('never_created')).toBe(false);
  });

  // What pg_dump 16 and 17 write (archive formats 1.15 and 1.16), made from the real dump by
  // rewriting its header and TOC (test/support/archive-versions.ts): the machine's pg_restore 15 reads neither.
  it.each([
    ['16.14', '1.15', 16],
    ['17.10', '1.16', 17],
  ])(
    'an archive of pg_dump %s (format %s) that no local pg_restore reads is exit 11 naming its format and pg_restore %i or newer; the target is not created',
    async (pgDump, format, takes) => {
      const local = (await execa(h.realPgRestore, ['--version'])).stdout.trim(); // "pg_restore (PostgreSQL) 15.18 (Debian ...)"
      expect(Number(/\) (\d+)/.exec(local)?.[1]), 'this case needs a machine whose pg_restore is older than the archive').toBeLessThan(takes);
      const newer = join(h.scratch, `pg_dump-${pgDump}.pgdump`);
      const bytes = asWrittenBy(await readFile(h.dumpPath), pgDump);
      expect(`${bytes[5]}.${bytes[6]}`).toBe(format);
      await writeFile(newer, bytes);
      const served = await h.serve(newer);
      h.coords = { ...h.coords, presignedS3Url: served.url, expectedSizeBytes: bytes.length, expectedSha256: createHash('sha256').update(bytes).digest('hex') };

      const workDir = await h.workDir();
      const database = `restored_${takes}`;
      const r = await create(database, workDir);
      expect(r.code).toBe(11);
      expect(r.stderr).toContain(
        `The archive is format ${format} written by pg_dump ${pgDump}; reading it takes pg_restore ${takes} or newer, and this machine has ${local.replace('pg_restore (PostgreSQL) ', 'pg_restore ')} (`,
      );
      expect(r.stderr).toContain('Nothing was restored.');
      expect(r.stderr).toContain(`Install the PostgreSQL ${takes} client tools (Debian/Ubuntu: apt-get install postgresql-client-${takes}`);
      expect(served.requests).toHaveLength(1);
      expect(await h.databaseExists(database)).toBe(false);
      expect(await h.pgRestoreRuns()).toEqual([]);
      expect(await readdir(workDir)).toEqual([]);
      expect(await h.pgpassLeftovers()).toEqual([]);
    },
  );

  it('--verbose and the default work dir (the OS temp dir): the API exchange shown, no secret, nothing left in the temp dir', async () => {
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--verbose'], { env: { SVC_TARGET_DSN: h.dsn('restored_verbose', true) } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('POST /api/v1/restores 202');
    const [run] = await h.pgRestoreRuns();
    expect(run!.argv).toMatch(new RegExp(`${h.tmp}/svc-restore-[^/ ]+/artifact\\.dump$`));
    await expectRestored('restored_verbose', h.tmp);
  });

  it('restore run refuses a terminal on stdin (exit 2): the body must be piped in', async () => {
    const r = await h.cli(['restore', 'run'], { tty: true, env: { SVC_TARGET_DSN: h.dsn('never_created', true) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('restore run reads the createRestore response from standard input.');
    expect(h.artifact.requests).toEqual([]);
  });

  it('across every case: no secret in any output, no Authorization to the artifact store, no PGPASSFILE left', async () => {
    expect(h.outputs.length).toBeGreaterThan(20);
    const artifactRequests = [...h.artifactRequestsSeen, ...h.allArtifactRequests()];
    expect(artifactRequests.length).toBeGreaterThan(5);
    for (const req of artifactRequests) expect(req.headers.authorization).toBeUndefined();
    for (const text of h.outputs) for (const s of h.secrets()) expect(text).not.toContain(s);
    expect(await h.pgpassLeftovers()).toEqual([]);
    expect(await readdir(h.tmp)).toEqual([]);
  });
});
