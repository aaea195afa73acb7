import { readdir, readFile } from 'node:fs/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, DSN_PASSWORD, useRestoreHarness, waitFor } from '../support/restore-harness.js';

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

/** A table created in the target after the backup (issue 31 item 5): the swap must leave it behind, in the kept database. */
const INCIDENT_MARKER = 'CREATE TABLE incident_marker (id int); INSERT INTO incident_marker VALUES (1);';

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

  /** The databases whose names start with `prefix` (the new database, the kept one). */
  async function databasesLike(prefix: string): Promise<string[]> {
    const out = await h.cluster.psql(`SELECT datname FROM pg_database WHERE starts_with(datname, '${prefix}') ORDER BY 1`);
    return out ? out.split('\n') : [];
  }

  /** A URI for `role` (password `pw`) on the harness's server: no password in it unless given. */
  const roleDsn = (role: string, database: string, pw?: string) => `postgresql://${role}${pw ? `:${pw}` : ''}@127.0.0.1:${h.cluster.port}/${database}`;

  it('restores into a new database beside the target and swaps it in: the target equals the source, objects not in the backup are gone and kept in the replaced database', async () => {
    await drifted('inplace_replace', INCIDENT_MARKER);
    const before = await h.snapshot('inplace_replace');
    const workDir = await h.workDir();
    const receiptPath = `${workDir}-receipt.json`;
    const r = await inPlace('inplace_replace', workDir, '--confirm', '--receipt', receiptPath);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(h.createRestoreRequests()[0]!.body)).toStrictEqual({
      backupJobId: BACKUP_ID,
      targetRedactedDsn: h.redacted('inplace_replace'),
      mode: 'in_place',
      confirmDestructive: true,
    });
    expect(r.stdout).toContain(`Restored backup ${BACKUP_ID} of db_orders into ${h.redacted('inplace_replace')} (in place)`);
    expect(
      r.stderr.split('\n').filter((l) => /warning/i.test(l)),
      'the only warning: a superuser target (cli-contract 7.14)',
    ).toEqual([expect.stringMatching(/^warning: The role "postgres" is a superuser on /)]);
    const [run, ...more] = await h.pgRestoreRuns();
    expect(more).toEqual([]);
    // A new-database restore under another name: no --clean, no single transaction.
    const fresh = /--dbname=dbname='(inplace_replace_svc_restore_\d{14})'/.exec(run!.argv)?.[1];
    expect(fresh, run!.argv).toBeDefined();
    expect(run!.argv.split(' ').slice(0, 4)).toEqual(['--verbose', '--no-owner', '--no-privileges', '--exit-on-error']);
    expect(run!.argv).not.toMatch(/--clean|--single-transaction/);

    expect(await h.snapshot('inplace_replace')).toEqual(h.source);
    expect(await h.cluster.psql("SELECT to_regclass('public.incident_marker') IS NULL", 'inplace_replace')).toBe('t');
    const kept = fresh!.replace('_svc_restore_', '_svc_before_');
    expect(await databasesLike('inplace_replace_svc_')).toEqual([kept]);
    expect(await h.snapshot(kept)).toEqual(before);
    expect(await h.cluster.psql('SELECT count(*) FROM incident_marker', kept)).toBe('1');

    // The result names the kept database and the commands that drop it or swap it back; so does the receipt.
    expect(r.stdout).toMatch(new RegExp(`^previous: +the replaced database is kept as "${kept}" \\(a second copy on disk until dropped\\)$`, 'm'));
    const swapBack = /^swap back: +(.+)$/m.exec(r.stdout)?.[1];
    const dropPrevious = /^drop previous: +(.+)$/m.exec(r.stdout)?.[1];
    expect(dropPrevious).toBe(`psql -X postgresql://postgres@127.0.0.1:${h.cluster.port}/postgres -c 'DROP DATABASE "${kept}";'`);
    expect(swapBack).toBe(
      `psql -X postgresql://postgres@127.0.0.1:${h.cluster.port}/postgres -c 'ALTER DATABASE "inplace_replace" RENAME TO "${kept.replace('_before_', '_restored_')}"; ALTER DATABASE "${kept}" RENAME TO "inplace_replace";'`,
    );
    const receipt = JSON.parse(await readFile(receiptPath, 'utf8'));
    expect(receipt.inPlace).toMatchObject({ kept, droppedPrevious: false, terminated: [], commands: { dropPrevious, swapBack } });
    expect(receipt.phasesMs.swap).toBeGreaterThanOrEqual(0);

    // Pasted into sh, the swap-back command puts the replaced database back under its name.
    const back = await execa('sh', ['-c', swapBack!], { env: { PATH: process.env.PATH, PGPASSWORD: DSN_PASSWORD }, reject: false });
    expect(back.exitCode, back.stderr).toBe(0);
    expect(await h.snapshot('inplace_replace')).toEqual(before);
    expect(await h.snapshot(kept.replace('_before_', '_restored_'))).toEqual(h.source);
    await expectClean(workDir);
  });

  it('--json carries the kept name and the commands; --drop-previous leaves no kept database', async () => {
    await drifted('inplace_json');
    // As a superuser svc carries a role's settings in the database over too; a list setting stays a list.
    await h.cluster.psql(`DROP ROLE IF EXISTS app_viewer; CREATE ROLE app_viewer;
      ALTER ROLE app_viewer IN DATABASE inplace_json SET search_path = "Billing", public; ALTER DATABASE inplace_json SET timezone = 'Europe/Berlin';`);
    const settings = (db: string) =>
      h.cluster.psql(
        `SELECT string_agg(format('%s %s', setrole::regrole, setconfig), '; ' ORDER BY setrole) FROM pg_db_role_setting WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = '${db}')`,
      );
    const before = await settings('inplace_json');
    expect(before).toBe('- {TimeZone=Europe/Berlin}; app_viewer {"search_path=\\"Billing\\", public"}');
    const workDir = await h.workDir();
    const r = await inPlace('inplace_json', workDir, '--confirm', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(await settings('inplace_json')).toBe(before);
    const { inPlace: swapped } = JSON.parse(r.stdout).execution;
    expect(swapped.notCarriedOver).toEqual([]);
    expect(swapped.kept).toMatch(/^inplace_json_svc_before_\d{14}$/);
    expect(swapped.commands.swapBack).toContain(`ALTER DATABASE "${swapped.kept}" RENAME TO "inplace_json";`);
    expect(swapped.commands.dropPrevious).toContain(`DROP DATABASE "${swapped.kept}";`);
    expect(JSON.parse(r.stdout).execution.receipt.inPlace).toEqual(swapped);
    expect(await databasesLike('inplace_json_svc_')).toEqual([swapped.kept]);

    await drifted('inplace_drop', INCIDENT_MARKER);
    const dropped = await inPlace('inplace_drop', workDir, '--confirm', '--drop-previous', '--json');
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(JSON.parse(dropped.stdout).execution.inPlace).toMatchObject({ kept: null, droppedPrevious: true });
    expect(JSON.parse(dropped.stdout).execution.inPlace.commands).toBeUndefined();
    expect(await databasesLike('inplace_drop_svc_')).toEqual([]);
    expect(await h.snapshot('inplace_drop')).toEqual(h.source);
    await expectClean(workDir);
  });

  it('on an 80-column terminal the commands are lines of their own, broken only as shell continuations: the swap-back, pasted as printed, runs', async () => {
    await drifted('inplace_narrow', INCIDENT_MARKER);
    const before = await h.snapshot('inplace_narrow');
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', workDir], {
      tty: true,
      columns: 80,
      env: { SVC_TARGET_DSN: h.dsn('inplace_narrow', true) },
    });
    expect(r.code, r.stderr).toBe(0);
    for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(r.stdout.replace(/\n +/g, ' ')).toMatch(
      /previous: the replaced database is kept as "inplace_narrow_svc_before_\d{14}" \(a second copy on disk until dropped\); the commands above drop it or swap it back/,
    );
    // Each command: its lines up to the first that does not end in a continuation.
    const lines = r.stderr.split('\n');
    const commands: string[] = [];
    for (let i = lines.findIndex((l) => l.includes('To drop the replaced database, or to swap it back:')) + 1; commands.length < 2; i++) {
      const first = i;
      while (lines[i]!.endsWith(' \\')) i++;
      commands.push(lines.slice(first, i + 1).join('\n'));
    }
    expect(commands[0]).toMatch(/^ +psql -X .*DROP DATABASE "inplace_narrow_svc_before_\d{14}";'$/s);
    expect(commands[1]!.split('\n').length, commands[1]).toBeGreaterThan(1);
    const back = await execa('sh', ['-c', commands[1]!], { env: { PATH: process.env.PATH, PGPASSWORD: DSN_PASSWORD }, reject: false });
    expect(back.exitCode, back.stderr).toBe(0);
    expect(await h.snapshot('inplace_narrow')).toEqual(before);
    await expectClean(workDir);
  });

  it('pg_restore failing in the new database: the target exactly as it was, the new database dropped, and said (exit 11)', async () => {
    const dir = await h.pgRestoreShim('inplace-fails', '"$REAL" "$@"; echo "pg_restore: error: something broke" >&2; exit 1');
    await drifted('inplace_fail', INCIDENT_MARKER);
    const before = await h.snapshot('inplace_fail');
    const workDir = await h.workDir();
    const env = h.env({ SVC_TARGET_DSN: h.dsn('inplace_fail', true) });
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', workDir], {
      env: { ...env, PATH: `${dir}:${env.PATH}` },
    });
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('pg_restore: error: something broke');
    expect(r.stderr).toMatch(
      new RegExp(
        `The target ${h.redacted('inplace_fail').replaceAll('.', '\\.')} was not touched: the backup was being restored beside it into the new database "inplace_fail_svc_restore_\\d{14}", which was dropped\\.`,
      ),
    );
    expect(await h.snapshot('inplace_fail')).toEqual(before);
    expect(await databasesLike('inplace_fail_svc_')).toEqual([]);
    await expectClean(workDir);
  });

  it('other sessions on the target: exit 7 naming them before anything is downloaded; --terminate-connections ends them and swaps', async () => {
    await drifted('inplace_busy');
    const before = await h.snapshot('inplace_busy');
    const app = execa('psql', ['-X', '-d', h.dsn('inplace_busy'), '-c', 'SELECT pg_sleep(600)'], {
      env: { PATH: process.env.PATH, PGPASSWORD: DSN_PASSWORD, PGAPPNAME: 'orders-web' },
      reject: false,
    });
    await waitFor(
      'the application session',
      async () => (await h.cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'orders-web'")) === '1' || undefined,
    );
    const pid = await h.cluster.psql("SELECT pid FROM pg_stat_activity WHERE application_name = 'orders-web'");
    const workDir = await h.workDir();
    const refused = await inPlace('inplace_busy', workDir, '--confirm');
    expect(refused.code, refused.stderr).toBe(7);
    expect(refused.stderr).toContain(
      `The target database "inplace_busy" has 1 other session(s) now; svc swaps the restored database in only once they have ended: pid ${pid} (user postgres, application "orders-web", client 127.0.0.1).`,
    );
    expect(refused.stderr).toContain('--terminate-connections');
    expect(h.api.exchanges).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await h.snapshot('inplace_busy')).toEqual(before);

    const r = await inPlace('inplace_busy', workDir, '--confirm', '--terminate-connections');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Ended 1 other session(s) on "inplace_busy": pid ${pid} (user postgres, application "orders-web", client 127.0.0.1).`);
    expect((await app).exitCode).not.toBe(0);
    expect(await h.snapshot('inplace_busy')).toEqual(h.source);
    await expectClean(workDir);
  });

  it('a session that connects while pg_restore runs: exit 7 naming it at the swap, the new database dropped, the target untouched and taking connections', async () => {
    await drifted('inplace_late');
    const before = await h.snapshot('inplace_late');
    // Once the real restore is done, a client connects to the target (with svc's own connection settings) and stays.
    const late = `PGAPPNAME=late-client psql -X -d inplace_late -c 'SELECT pg_sleep(600)' >/dev/null 2>&1 </dev/null &
until psql -XAt -d postgres -c "SELECT 1 FROM pg_stat_activity WHERE application_name = 'late-client'" | grep -q 1; do sleep 0.1; done`;
    const dir = await h.pgRestoreShim('inplace-late', `"$REAL" "$@" || exit $?\n${late}`);
    const workDir = await h.workDir();
    const env = h.env({ SVC_TARGET_DSN: h.dsn('inplace_late', true) });
    try {
      const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', workDir], {
        env: { ...env, PATH: `${dir}:${env.PATH}` },
      });
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toMatch(
        /The target database "inplace_late" has 1 other session\(s\) at the swap; svc swaps the restored database in only once they have ended: pid \d+ \(user postgres, application "late-client", client 127\.0\.0\.1\)\./,
      );
      expect(r.stderr).toMatch(
        /was not touched: the backup was being restored beside it into the new database "inplace_late_svc_restore_\d{14}", which was dropped\./,
      );
      expect(await databasesLike('inplace_late_svc_')).toEqual([]);
      expect(await h.cluster.psql("SELECT datallowconn FROM pg_database WHERE datname = 'inplace_late'")).toBe('t');
      expect(await h.snapshot('inplace_late')).toEqual(before);
    } finally {
      await h.cluster.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'late-client'");
    }
    await expectClean(workDir);
  });

  it('a role that may not create databases: exit 7 naming CREATEDB, before createRestore and any download', async () => {
    await drifted('inplace_nocreatedb');
    await h.cluster.psql(
      "DROP ROLE IF EXISTS app_nocreatedb; CREATE ROLE app_nocreatedb LOGIN PASSWORD 'app-pw-1'; ALTER DATABASE inplace_nocreatedb OWNER TO app_nocreatedb;",
    );
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', workDir], {
      env: { SVC_TARGET_DSN: roleDsn('app_nocreatedb', 'inplace_nocreatedb', 'app-pw-1') },
    });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('which needs the CREATEDB privilege: The role "app_nocreatedb" has neither CREATEDB nor superuser. Nothing was downloaded.');
    expect(r.stderr).toContain('ALTER ROLE "app_nocreatedb" CREATEDB');
    expect(h.createRestoreRequests()).toEqual([]);
    expect(h.artifact.requests).toEqual([]);
    expect(await databasesLike('inplace_nocreatedb_svc_')).toEqual([]);
    await expectClean(workDir);
  });

  it("carries the replaced database's owner, privileges, settings and comment over to the restored one", async () => {
    await drifted('inplace_props');
    await h.cluster.psql(`DROP ROLE IF EXISTS app_owner; DROP ROLE IF EXISTS app_reader;
      CREATE ROLE app_owner LOGIN CREATEDB PASSWORD 'owner-pw-1'; CREATE ROLE app_reader;
      ALTER DATABASE inplace_props OWNER TO app_owner;
      REVOKE ALL ON DATABASE inplace_props FROM PUBLIC; GRANT CONNECT ON DATABASE inplace_props TO app_reader; GRANT TEMP ON DATABASE inplace_props TO app_reader WITH GRANT OPTION;
      ALTER DATABASE inplace_props SET work_mem = '8MB'; ALTER DATABASE inplace_props SET search_path = app, "Billing", public;
      ALTER ROLE app_reader IN DATABASE inplace_props SET statement_timeout = '5s';
      ALTER DATABASE inplace_props CONNECTION LIMIT 40;
      COMMENT ON DATABASE inplace_props IS 'orders, the operator''s';`);
    const PROPS = `SELECT json_build_object('owner', pg_get_userbyid(d.datdba), 'acl', (SELECT array_agg(a ORDER BY a::text) FROM unnest(d.datacl) a)::text,
      'settings', (SELECT json_agg(format('%s %s', s.setrole::regrole, s.setconfig) ORDER BY s.setrole) FROM pg_db_role_setting s WHERE s.setdatabase = d.oid),
      'comment', shobj_description(d.oid, 'pg_database'), 'connlimit', d.datconnlimit) FROM pg_database d WHERE d.datname = :'db'`;
    const props = async (db: string) => JSON.parse(await h.cluster.psql(PROPS.replace(":'db'", `'${db}'`)));
    const before = await props('inplace_props');
    expect(before).toMatchObject({ owner: 'app_owner', comment: "orders, the operator's", connlimit: 40 });
    // As the owner, a role that is not a superuser: the target's own role restores it.
    const workDir = await h.workDir();
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--json', '--work-dir', workDir], {
      env: { SVC_TARGET_DSN: roleDsn('app_owner', 'inplace_props', 'owner-pw-1') },
    });
    expect(r.code, r.stderr).toBe(0);
    const { kept, notCarriedOver } = JSON.parse(r.stdout).execution.inPlace;
    // A role's setting in the database needs CREATEROLE or a superuser: said, listed, and the rest carried over.
    const roleSetting = `ALTER ROLE "app_reader" IN DATABASE "${kept.replace('_before_', '_restore_')}" SET "statement_timeout" TO '5s';`;
    expect(notCarriedOver).toEqual([{ statement: roleSetting, reason: expect.stringMatching(/permission denied|must have CREATEROLE|must be superuser/) }]);
    expect(r.stderr).toContain(`warning: Not carried over from the replaced database: ${roleSetting}`);
    expect(await props('inplace_props')).toEqual({ ...before, settings: before.settings.filter((s: string) => !s.startsWith('app_reader')) });
    expect(await props(kept)).toEqual(before);
    expect(await h.snapshot('inplace_props')).toMatchObject({ rows: h.source.rows });
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
    // One line says which database is replaced and where its current state will be kept.
    const keptAs = /^In-place restore: replaces (\S+); its current state is kept as the database "(inplace_prompt_svc_before_\d{14})"\.$/.exec(
      prompts[0]!.split('\n')[0]!,
    );
    expect(keptAs?.[1], prompts[0]).toBe(h.redacted('inplace_prompt'));
    expect(await databasesLike('inplace_prompt_svc_')).toEqual([keptAs![2]]);
    expect(prompts[0]).toContain('Type the database name "inplace_prompt" to confirm');
    // Asked after the service checked the backup, and naming it: id, database, completion time, size.
    // One age, measured one way: the prompt says the same times and age as the "Using ..." line (issue 34).
    const times = /^Using \S+, (started .*\(\d+[smhd] ago, age from its start\)): /m.exec(r.stderr)?.[1];
    expect(times, r.stderr).toBe(
      `started 2026-11-21T06:00:03Z, completed 2026-11-21T06:01:40Z (${/\((\d+[smhd] ago),/.exec(times ?? '')?.[1]}, age from its start)`,
    );
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
    expect((await h.pgRestoreRuns())[0]!.argv).toMatch(/--dbname=dbname='inplace_run_svc_restore_\d{14}'/);
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
