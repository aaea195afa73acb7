/**
 * A --check cannot leave its read-only, time-limited session (cli-contract 9, v4 step 10; issue 22,
 * item 1): each check is sent as one statement through the extended query protocol, as a role of
 * the run that can only read, on a connection of its own, and its rows are read with a bound.
 * One drill holds every case. The contract's 60 s statement timeout is shortened to 15 s here
 * (SVC_TEST_CHECK_TIMEOUT_MS, src/contract-timers.ts; room for the 120 MB value on a loaded
 * machine); drill-sandbox.test.ts checks that a check sees the full 60 s. Soft assertions: a failure names every claim that broke.
 */
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-check-escape.test.ts skipped: ${skip}`);

/** The text svc used to wrap a check in, closed from inside (issue 22): what follows ran as statements of their own. */
const CLOSE_THE_WRAPPER = 'SELECT 1 WHERE false) s) q HAVING false;';
/** ... and what reopens it, so that the wrapper's own tail still parses. */
const REOPEN = "SELECT '[]' FROM (SELECT 1 FROM (SELECT 1";
const TIMEOUT_MS = 15_000;

describe.skipIf(!!skip)('a SQL check that tries to leave its session', () => {
  const h = new DrillE2e();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('creates nothing, runs no program, cannot lift the statement timeout, runs as a role that can only read, and reads a 120 MB value with a bound', async () => {
    // Where the server's OS user could write, were a COPY ... TO PROGRAM to run.
    const markers = mkdtempSync(join(h.root, 'markers-'));
    chmodSync(markers, 0o777);
    const escaped = join(markers, 'escaped');
    const several = join(markers, 'several');
    const file = join(h.workDir(), 'escape.sql');
    writeFileSync(
      file,
      [
        '-- check: closes_the_wrapper',
        `${CLOSE_THE_WRAPPER} SET default_transaction_read_only=off; COMMIT; CREATE TABLE escaped_check (id int); COPY (SELECT 1) TO PROGRAM 'touch ${escaped}'; ${REOPEN}`,
        '-- check: several_statements',
        `SELECT 1 WHERE false; CREATE TABLE escaped_check_2 (id int); COPY (SELECT 1) TO PROGRAM 'touch ${several}'`,
        '-- check: lifts_the_timeout',
        `${CLOSE_THE_WRAPPER} SET statement_timeout = 0; ${REOPEN} FROM pg_sleep(65)`,
        '-- check: sleeps_65s',
        'SELECT 1 AS woke FROM pg_sleep(65)',
        '-- check: returns_120mb',
        "SELECT repeat('x', 120 * 1024 * 1024) AS v",
        '-- check: who_runs_it',
        'SELECT current_user AS who, r.rolsuper AS super, r.rolcreaterole AS createrole, r.rolcreatedb AS createdb,',
        "  (SELECT string_agg(g.rolname, ',') FROM pg_auth_members am JOIN pg_roles g ON g.oid = am.roleid WHERE am.member = r.oid) AS member_of,",
        "  current_setting('transaction_read_only') AS ro, current_setting('statement_timeout') AS timeout, shobj_description(r.oid, 'pg_authid') AS comment,",
        "  (SELECT array_to_string(setconfig, ' ') FROM pg_db_role_setting WHERE setrole = r.oid AND setdatabase = 0) AS role_settings, r.rolbypassrls AS bypassrls",
        'FROM pg_roles r WHERE r.rolname = current_user',
        '-- check: reads_every_table',
        'SELECT count(*) AS n FROM orders HAVING count(*) <> 5000',
        '-- check: reads_server_files',
        "SELECT f FROM pg_ls_dir('.') AS f",
        '-- check: sets_for_the_next',
        "SELECT s FROM (SELECT set_config('statement_timeout', '0', false) AS s) x WHERE s IS NULL",
        '-- check: next_has_the_timeout',
        "SELECT current_setting('statement_timeout') AS t WHERE current_setting('statement_timeout') <> '15s'",
        '-- check: nothing_was_created',
        "SELECT relname FROM pg_class WHERE relname LIKE 'escaped\\_check%'",
        '',
      ].join('\n'),
    );
    const r = await h.drill(['db_orders', '--check', file, '--json'], { env: { SVC_TEST_CHECK_TIMEOUT_MS: String(TIMEOUT_MS) } });
    // No program ran, no table was made.
    expect.soft(existsSync(escaped)).toBe(false);
    expect.soft(existsSync(several)).toBe(false);
    expect(r.doc, r.stderr).toBeDefined();
    expect.soft(r.code, r.stderr).toBe(13);
    const checks = Object.fromEntries(r.doc!.databases[0]!.checks.filter((c) => c.name.startsWith('check:')).map((c) => [c.name.slice(6), c]));
    expect.soft(checks.nothing_was_created).toMatchObject({ status: 'passed' });

    // No text of a check closes a wrapper or reaches a second statement.
    expect
      .soft(checks.closes_the_wrapper)
      .toMatchObject({ status: 'failed', detail: expect.stringMatching(/^the query failed: ERROR: +syntax error at or near "\)"/) });
    expect.soft(checks.several_statements).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^the query failed: ERROR: +cannot insert multiple commands into a prepared statement/),
    });

    // The timeout holds: neither the escape nor a plain sleep runs its 65 s.
    expect.soft(checks.lifts_the_timeout).toMatchObject({ status: 'failed' });
    expect.soft(checks.lifts_the_timeout!.durationMs).toBeLessThan(65_000);
    expect
      .soft(checks.sleeps_65s)
      .toMatchObject({ status: 'failed', detail: expect.stringMatching(/^the query failed: ERROR: +canceling statement due to statement timeout/) });
    expect.soft(checks.sleeps_65s!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect.soft(checks.sleeps_65s!.durationMs).toBeLessThan(65_000);

    // The value is cut at 200 characters, and read without holding 120 MB.
    expect.soft(checks.returns_120mb).toMatchObject({ status: 'failed', detail: `returned 1 row; they are: v=${'x'.repeat(200)}…` });

    // The role: made for this run, marked, no right but to read, the settings on it.
    expect.soft(checks.who_runs_it!.status).toBe('failed');
    expect
      .soft(checks.who_runs_it!.detail)
      .toMatch(
        /^returned 1 row; they are: who=svc_drill_check_[0-9a-f]{8}, super=false, createrole=false, createdb=false, member_of=pg_read_all_data, ro=on, timeout=15s, comment=svc restore drill: pid=\d+ host=\S+ started=\S+, role_settings=default_transaction_read_only=on statement_timeout=15000ms, bypassrls=true$/,
      );
    expect.soft(checks.reads_every_table).toMatchObject({ status: 'passed' });
    expect
      .soft(checks.reads_server_files)
      .toMatchObject({ status: 'failed', detail: expect.stringMatching(/^the query failed: ERROR: +permission denied for function pg_ls_dir/) });

    // A setting one check makes dies with its connection.
    expect.soft(checks.sets_for_the_next).toMatchObject({ status: 'passed' });
    expect.soft(checks.next_has_the_timeout).toMatchObject({ status: 'passed' });
  });
});
