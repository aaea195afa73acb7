/**
 * A --check runs inside a read-only transaction block svc opens and always rolls back
 * (cli-contract 7.16 b; issue 29, item 3). A `DO` block is one statement, and PostgreSQL lets it
 * COMMIT where no transaction block is open: `SET default_transaction_read_only = off; COMMIT;`
 * then left read-only mode. svc's "must be one SELECT" test read the text with a regex that did not
 * know nested comments, so `/* /* *\/ select *\/ DO ...` passed it; with --scratch auto the check
 * created a table, with --scratch <dsn> (a role that may not create roles, so the checks run as the
 * operator's role) that role kept `work_mem = 77kB` after the drill. Now svc does not read the text:
 * the server refuses the COMMIT inside svc's transaction block, and the check fails with its reason.
 * Built CLI, real PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecret } from '../e2e/helpers.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-check-transaction.test.ts skipped: ${skip}`);

/** Leaves read-only mode, commits, and then changes what outlives the drill. */
const escape = (then: string) => `DO $$ BEGIN SET default_transaction_read_only = off; COMMIT; ${then} END $$`;
/** The comment a regex that stops at the first `*\/` takes for a comment followed by a SELECT. */
const NESTED = '/* /* */ select */';
const INVALID_TERMINATION = /^the query failed: ERROR: +invalid transaction termination/;

type Checks = Record<string, { status: string; detail?: string }>;
const checksOf = (doc: { databases: Array<{ checks: Array<{ name: string; status: string; detail?: string }> }> } | undefined): Checks =>
  Object.fromEntries((doc?.databases[0]?.checks ?? []).filter((c) => c.name.startsWith('check:')).map((c) => [c.name.slice(6), c]));

describe.skipIf(!!skip)('a check cannot leave the read-only transaction svc runs it in', { timeout: 180_000 }, () => {
  const h = new DrillE2e();
  let cluster: PgCluster;
  const password = `ops-${randomBytes(8).toString('hex')}`;

  beforeAll(async () => {
    registerSecret(password, 'dsnPasswords');
    // Prepared transactions allowed, as on some operators' servers: a check's PREPARE TRANSACTION must not outlive it.
    const [started, pg] = await Promise.allSettled([h.start(), startCluster({ settings: { max_prepared_transactions: '4' } })]);
    if (pg.status === 'fulfilled') cluster = pg.value;
    for (const r of [started, pg]) if (r.status === 'rejected') throw r.reason;
    registerSecret(cluster.password, 'dsnPasswords');
    await cluster.psql(`CREATE ROLE drill_ops LOGIN CREATEDB PASSWORD '${password}'`);
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled([cluster?.stop(), h.stop()]);
  });

  it("--scratch auto: the DO ... COMMIT check, bare or behind a nested comment, creates no table and fails with the server's reason; ordinary checks pass and fail as before", async () => {
    const file = join(h.workDir(), 'escape.sql');
    writeFileSync(
      file,
      [
        '-- check: do_commit',
        escape('CREATE TABLE escaped_do (id int);'),
        '-- check: nested_comment',
        `${NESTED} ${escape('CREATE TABLE escaped_nested (id int);')}`,
        '-- check: commit_alone',
        'COMMIT',
        '-- check: only_comments',
        '/* nothing to run */',
        '-- check: nothing_was_created',
        "SELECT relname FROM pg_class WHERE relname LIKE 'escaped\\_%'",
        '-- check: read_only_repeatable_read',
        "SELECT current_setting('transaction_read_only') AS ro, current_setting('transaction_isolation') AS iso WHERE current_setting('transaction_read_only') <> 'on' OR current_setting('transaction_isolation') <> 'repeatable read'",
        '-- check: some_rows',
        "SELECT 'x' AS v",
        '',
      ].join('\n'),
    );
    const r = await h.drill(['db_orders', '--check', file, '--json']);
    expect(r.doc, r.stderr).toBeDefined();
    expect.soft(r.code, r.stderr).toBe(13);
    const checks = checksOf(r.doc);
    expect.soft(checks.nothing_was_created, JSON.stringify(checks)).toMatchObject({ status: 'passed' });
    expect.soft(checks.do_commit).toMatchObject({ status: 'failed', detail: expect.stringMatching(INVALID_TERMINATION) });
    expect.soft(checks.nested_comment).toMatchObject({ status: 'failed', detail: expect.stringMatching(INVALID_TERMINATION) });
    expect
      .soft(checks.commit_alone)
      .toMatchObject({ status: 'failed', detail: expect.stringMatching(/^the query failed: the check ended the read-only transaction svc ran it in/) });
    expect
      .soft(checks.only_comments)
      .toMatchObject({ status: 'failed', detail: 'the query failed: the server ran no statement (the check holds only comments)' });
    expect.soft(checks.read_only_repeatable_read).toMatchObject({ status: 'passed' });
    expect.soft(checks.some_rows).toMatchObject({ status: 'failed', detail: 'returned 1 row; they are: v=x' });
  });

  it("--scratch <dsn>, a role that may not create roles: the operator's role keeps no setting and no prepared transaction a check made", async () => {
    const settings = () =>
      cluster.psql("SELECT coalesce(string_agg(array_to_string(setconfig, ' '), '; '), '') FROM pg_db_role_setting WHERE setrole = 'drill_ops'::regrole");
    expect(await settings()).toBe('');
    const file = join(h.workDir(), 'operator.sql');
    writeFileSync(
      file,
      [
        // The form that passed svc's old text test: only the server stands in its way.
        '-- check: nested_comment_alter_role',
        `${NESTED} ${escape("ALTER ROLE current_user SET work_mem = '77kB';")}`,
        '-- check: prepares_its_transaction',
        "PREPARE TRANSACTION 'svc_check_escape'",
        '-- check: no_orders_missing',
        'SELECT count(*) AS n FROM orders HAVING count(*) = 0',
        '',
      ].join('\n'),
    );
    const dsn = `postgresql://drill_ops:${password}@127.0.0.1:${cluster.port}/postgres`;
    const r = await h.drill(['db_orders', '--scratch', dsn, '--check', file, '--json']);
    expect(r.doc, r.stderr).toBeDefined();
    expect.soft(r.stderr).toContain('may not create roles on');
    const checks = checksOf(r.doc);
    expect
      .soft(checks.nested_comment_alter_role, JSON.stringify(checks))
      .toMatchObject({ status: 'failed', detail: expect.stringMatching(INVALID_TERMINATION) });
    expect
      .soft(checks.prepares_its_transaction)
      .toMatchObject({ status: 'failed', detail: expect.stringMatching(/^the query failed: the check ended the read-only transaction svc ran it in/) });
    expect.soft(checks.no_orders_missing).toMatchObject({ status: 'passed' });
    // Nothing of the checks is left: no prepared transaction, and so the scratch database could be dropped.
    expect.soft(await cluster.psql('SELECT count(*) FROM pg_prepared_xacts')).toBe('0');
    expect.soft(await cluster.psql("SELECT count(*) FROM pg_database WHERE datname LIKE 'svc\\_drill\\_%'")).toBe('0');
    expect(await settings()).toBe('');
  });
});
