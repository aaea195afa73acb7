import { readdir } from 'node:fs/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, DSN_PASSWORD, useRestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore-pg/in-place.test.ts skipped: ${skip}`);

/** Makes a seeded database differ from the source in data, a sequence and an index. */
const DRIFT = `
UPDATE customers SET name = 'Renamed ' || id WHERE id <= 50;
DELETE FROM orders WHERE id > 4500;
INSERT INTO orders (customer_id, invoice_number, status, amount, placed_at) VALUES (1, 900001, 'paid', 1.00, '2025-01-01Z');
SELECT setval('invoice_number_seq', 900001);
DROP INDEX orders_placed_at_idx;
`;

/** Outside the archive and depending on one of its tables: `DROP TABLE orders` must fail on it. */
const DEPENDENT_VIEW = 'CREATE VIEW big_orders AS SELECT id, amount FROM orders WHERE amount > 900;';

describe.skipIf(!!skip)('restore create --in-place against a real PostgreSQL', () => {
  const h = useRestoreHarness();

  const inPlace = (database: string, workDir: string, ...extra: string[]) =>
    h.cli(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--work-dir', workDir, ...extra], { env: { SVC_TARGET_DSN: h.dsn(database, true) } });

  async function drifted(database: string, extraSql = ''): Promise<void> {
    await h.seeded(database);
    await h.cluster.psql(DRIFT + extraSql, database);
    expect(await h.snapshot(database)).not.toEqual(h.source);
  }

  async function expectClean(workDir: string): Promise<void> {
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
    for (const run of await h.pgRestoreRuns()) {
      expect(run.cmdline).not.toContain(DSN_PASSWORD);
      expect(run.cmdline).not.toContain(encodeURIComponent(DSN_PASSWORD));
    }
  }

  it('replaces different data in one transaction and ends equal to the source', async () => {
    await drifted('inplace_replace');
    const workDir = await h.workDir();
    const r = await inPlace('inplace_replace', workDir, '--confirm');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(h.createRestoreRequests()[0]!.body)).toStrictEqual({
      backupJobId: BACKUP_ID,
      targetRedactedDsn: h.redacted('inplace_replace'),
      mode: 'in_place',
      confirmDestructive: true,
    });
    expect(r.stdout).toContain(`Restored backup ${BACKUP_ID} of db_orders into ${h.redacted('inplace_replace')} (in place)`);
    expect(r.stderr.split('\n').filter((l) => /warning/i.test(l)), 'the only warning: a superuser target (cli-contract 7.14)').toEqual([expect.stringMatching(/^warning: The role "postgres" is a superuser on /)]);
    const [run, ...more] = await h.pgRestoreRuns();
    expect(more).toEqual([]);
    expect(run!.argv.split(' ').slice(0, -1)).toEqual([
      // --verbose: one line per object, which svc reads for its progress.
      '--verbose',
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '--clean',
      '--if-exists',
      '--single-transaction',
      "--dbname=dbname='inplace_replace'",
    ]);
    expect(await h.snapshot('inplace_replace')).toEqual(h.source);
    await expectClean(workDir);
  });

  it('a failure midway leaves the target exactly as it was (single transaction rolled back), exit 11', async () => {
    // The archive's clean-up drops a foreign key, indexes, a sequence and the view before
    // `DROP TABLE orders` fails on big_orders: statements that had already run inside the
    // transaction must be undone.
    const script = (await execa(h.realPgRestore, ['--clean', '--if-exists', '--no-owner', '-f', '-', h.dumpPath])).stdout;
    const dropOrders = script.indexOf('DROP TABLE IF EXISTS public.orders;');
    expect(dropOrders).toBeGreaterThan(0);
    for (const earlier of [
      'DROP CONSTRAINT IF EXISTS orders_customer_id_fkey;',
      'DROP INDEX IF EXISTS public.orders_customer_id_idx;',
      'DROP SEQUENCE IF EXISTS public.invoice_number_seq;',
      'DROP VIEW IF EXISTS public.customer_order_totals;',
    ]) {
      expect(script.indexOf(earlier), earlier).toBeGreaterThanOrEqual(0);
      expect(script.indexOf(earlier), earlier).toBeLessThan(dropOrders);
    }

    await drifted('inplace_fail', DEPENDENT_VIEW);
    const before = await h.snapshot('inplace_fail');
    const workDir = await h.workDir();
    const r = await inPlace('inplace_fail', workDir, '--confirm');
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('pg_restore exited with code 1');
    expect(r.stderr).toContain('cannot drop table public.orders because other objects depend on it');
    expect(r.stderr).toContain(`pg_restore ran in a single transaction, so it was rolled back: ${h.redacted('inplace_fail')} is as it was before.`);
    expect(await h.snapshot('inplace_fail')).toEqual(before);
    await expectClean(workDir);
  });

  it('--jobs 2 warns that it is not atomic, restores with parallel jobs and ends equal to the source', async () => {
    await drifted('inplace_jobs');
    const workDir = await h.workDir();
    const r = await inPlace('inplace_jobs', workDir, '--confirm', '--jobs', '2');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: --jobs 2: the in-place restore is not one transaction; a failure can leave the target partly restored.');
    const [run] = await h.pgRestoreRuns();
    expect(run!.argv).toContain('--clean --if-exists --jobs=2');
    expect(run!.argv).not.toContain('--single-transaction');
    expect(await h.snapshot('inplace_jobs')).toEqual(h.source);
    await expectClean(workDir);
  });

  it('--jobs 2 failing midway says the target may be partly restored, and it is', async () => {
    await drifted('inplace_jobs_fail', DEPENDENT_VIEW);
    const before = await h.snapshot('inplace_jobs_fail');
    const workDir = await h.workDir();
    const r = await inPlace('inplace_jobs_fail', workDir, '--confirm', '--jobs', '2');
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('warning: --jobs 2: the in-place restore is not one transaction');
    expect(r.stderr).toContain(`pg_restore ran with --jobs 2, not in one transaction: ${h.redacted('inplace_jobs_fail')} may now be partly restored.`);
    const after = await h.snapshot('inplace_jobs_fail');
    expect(after).not.toEqual(before);
    expect(after.description.views).not.toContain('customer_order_totals');
    await expectClean(workDir);
  });

  it('--in-place without --confirm and no TTY is exit 2 before createRestore', async () => {
    await drifted('inplace_noconfirm');
    const before = await h.snapshot('inplace_noconfirm');
    const workDir = await h.workDir();
    const r = await inPlace('inplace_noconfirm', workDir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`An in-place restore replaces the contents of ${h.redacted('inplace_noconfirm')} and needs --confirm in a non-interactive run.`);
    expect(h.api.exchanges).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(await h.snapshot('inplace_noconfirm')).toEqual(before);
    await expectClean(workDir);
  });

  it('on a TTY, typing the database name at the prompt confirms it', async () => {
    await drifted('inplace_prompt');
    const prompts: string[] = [];
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--work-dir', workDir], {
      tty: true,
      env: { SVC_TARGET_DSN: h.dsn('inplace_prompt', true) },
      prompter: {
        text: async (message, validate) => {
          prompts.push(message);
          expect(validate?.('inplace_promp')).toMatch(/Type exactly: inplace_prompt/);
          expect(validate?.('inplace_prompt')).toBeUndefined();
          return 'inplace_prompt';
        },
      },
    });
    h.record(...prompts);
    expect(r.code, r.stderr).toBe(0);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain(h.redacted('inplace_prompt'));
    expect(prompts[0]).toContain('Type the database name "inplace_prompt" to confirm');
    // Asked after the service checked the backup, and naming it: id, database, completion time, size.
    // One age, measured one way: the prompt says the same times and age as the "Using ..." line (issue 34).
    const times = /^Using \S+, (started .*\(\d+[smhd] ago, age from its start\)): /m.exec(r.stderr)?.[1];
    expect(times, r.stderr).toBe(`started 2026-11-21T06:00:03Z, completed 2026-11-21T06:01:40Z (${/\((\d+[smhd] ago),/.exec(times ?? '')?.[1]}, age from its start)`);
    expect(prompts[0]).toContain(`from backup ${BACKUP_ID} of db_orders, ${times}, `);
    expect(prompts[0]).toMatch(/ \d+\.\d KiB/);
    expect(JSON.parse(h.createRestoreRequests()[0]!.body)).toMatchObject({ mode: 'in_place', confirmDestructive: true });
    expect(await h.snapshot('inplace_prompt')).toEqual(h.source);
    await expectClean(workDir);
  });

  it.each([
    ['another name', 2, 'acme_orders'],
    ['a cancelled prompt (Ctrl-C)', 130, undefined],
  ])('on a TTY, %s at the prompt ends the run with exit %i and nothing is created on the service', async (_what, code, answer) => {
    await drifted('inplace_declined');
    const before = await h.snapshot('inplace_declined');
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--work-dir', workDir], {
      tty: true,
      env: { SVC_TARGET_DSN: h.dsn('inplace_declined', true) },
      prompter: { text: async () => answer },
    });
    expect(r.code).toBe(code);
    expect(r.stderr).toContain('In-place restore not confirmed; nothing was changed.');
    // The backup was checked before the prompt; nothing was created.
    expect(h.api.exchanges.map((e) => `${e.method} ${e.url.pathname}`)).toEqual([`GET /api/v1/backups/${BACKUP_ID}`]);
    expect(h.artifact.requests).toEqual([]);
    expect(await h.snapshot('inplace_declined')).toEqual(before);
    await expectClean(workDir);
  });

  it('restore run with an in_place body needs --confirm (exit 2, nothing downloaded), and with it restores in place', async () => {
    await drifted('inplace_run');
    const before = await h.snapshot('inplace_run');
    const body = JSON.stringify(h.restoreBody('in_place'));
    const env = { SVC_TARGET_DSN: h.dsn('inplace_run', true) };
    const workDir = await h.workDir();

    const refused = await h.cli(['restore', 'run', '--work-dir', workDir], { stdin: body, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('needs --confirm in a non-interactive run');
    expect(h.artifact.requests).toEqual([]);
    expect(await h.snapshot('inplace_run')).toEqual(before);

    const r = await h.cli(['restore', 'run', '--confirm', '--work-dir', workDir, '--json'], { stdin: body, env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).restoreJob.mode).toBe('in_place');
    expect(h.api.exchanges).toEqual([]);
    expect((await h.pgRestoreRuns())[0]!.argv).toContain('--clean --if-exists --single-transaction');
    expect(await h.snapshot('inplace_run')).toEqual(h.source);
    await expectClean(workDir);
  });

  it('restore run refuses --in-place against a new_database body (exit 2)', async () => {
    const r = await h.cli(['restore', 'run', '--in-place', '--confirm', '--work-dir', await h.workDir()], {
      stdin: JSON.stringify(h.restoreBody('new_database')),
      env: { SVC_TARGET_DSN: h.dsn('inplace_run', true) },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("The restore job's mode is new_database; --in-place contradicts it.");
    expect(h.artifact.requests).toEqual([]);
  });

  it('--in-place into template1 is refused even with --confirm (exit 2)', async () => {
    const r = await inPlace('template1', await h.workDir(), '--confirm');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Refusing to restore into the system database "template1"');
    expect(h.api.exchanges).toEqual([]);
  });

  it('--in-place into a database that does not exist fails the reachability preflight (exit 11) before createRestore', async () => {
    const r = await inPlace('no_such_db', await h.workDir(), '--confirm');
    expect(r.code).toBe(11);
    expect(r.stderr).toContain(`Cannot connect to the target ${h.redacted('no_such_db')}`);
    expect(r.stderr).toContain('database "no_such_db" does not exist');
    expect(h.api.exchanges).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
  });

  it('across every case: no secret in any output, no Authorization to the artifact store', () => {
    expect(h.outputs.length).toBeGreaterThan(15);
    for (const text of h.outputs) for (const s of h.secrets()) expect(text).not.toContain(s);
    for (const req of [...h.artifactRequestsSeen, ...h.allArtifactRequests()]) expect(req.headers.authorization).toBeUndefined();
  });
});
