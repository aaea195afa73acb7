/**
 * `svc restore drill` end to end (cli-contract 9): the built CLI against the sandbox, restoring the
 * sandbox's real archives into a throwaway PostgreSQL cluster that svc starts itself (`--scratch
 * auto`, the machine's server binaries). db_orders' newest completed backup (bj_0007) serves
 * fixtures/artifacts/acme-orders.pgdump, db_billing's (bj_0005) billing.pgdump, db_analytics has none.
 * After every run: no process of the drill and no file in its work dir, no secret anywhere
 * (test/support/drill-e2e.ts). Skips without a PostgreSQL server, except under CI.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { PHASES } from '../../src/restore/plan.js';
import { svc } from '../e2e/helpers.js';
import { expectJunitMatchesDocument, expectMarkdownMatchesDocument } from '../support/drill-report.js';
import { DrillE2e, expectNothingLeft, processesIn, stopKept } from '../support/drill-e2e.js';
import { readJunit } from '../support/junit.js';
import { findPgBinDir, pgSkipReason } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-sandbox.test.ts skipped: ${skip}`);

/** The contract's order of a database's built-in checks (cli-contract 9, step 4), without max_age. */
const BUILT_IN = ['backup_selected', 'artifact_verified', 'restore_clean', 'objects_present', 'data_present', 'rows_match'];
const SCRATCH_DB = /^svc_drill_db_orders_[0-9a-f]{8}$/;

describe.skipIf(!!skip)('svc restore drill against the sandbox, --scratch auto', { timeout: 120_000 }, () => {
  const h = new DrillE2e();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  /** What the sandbox says of a backup (getBackup through the CLI). */
  async function backup(id: string): Promise<{ startedAt: string; completedAt: string }> {
    const r = await svc(['backups', 'get', id, '--json'], { env: h.sb.env('full') });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  }

  /** A check file in its own directory. */
  function checkFile(name: string, text: string): string {
    const path = join(h.workDir(), name);
    writeFileSync(path, text);
    return path;
  }

  /** The table on stdout, as rows of cells (two or more spaces apart). */
  const tableRows = (stdout: string) =>
    stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split(/ {2,}/));

  it('one database: exit 0, a table row with its backup, age, recovery time and result; a progress line per phase on stderr', async () => {
    const before = h.restoresCreated();
    const r = await h.drill(['db_orders']);
    expect(r.code, r.stderr).toBe(0);
    const rows = tableRows(r.stdout);
    expect(rows[0]).toEqual(['DATABASE', 'NAME', 'BACKUP', 'AGE', 'RECOVERY', 'RESULT', 'FAILED CHECK']);
    expect(rows).toHaveLength(2);
    expect(rows[1]!.slice(0, 3)).toEqual(['db_orders', 'orders-prod', 'bj_0007']);
    expect(rows[1]![3]).toMatch(/^\d+d\d*h?$|^\d+h\d*m?$/);
    expect(rows[1]![4]).toMatch(/^\d+\.\ds$/);
    expect(rows[1]![5]).toBe('passed');
    expect(rows[1]).toHaveLength(6); // no failed check
    expect(h.restoresCreated()).toBe(before + 1);
    const lines = r.stderr.trimEnd().split('\n');
    const debian = findPgBinDir()!;
    expect(lines[0]).toMatch(new RegExp(`^Scratch server: PostgreSQL \\d+\\.\\d+ from (${debian}|/usr/\\S+) \\(`));
    expect(lines.slice(1, 8).map((l) => l.replace(/svc_drill_db_orders_[0-9a-f]{8}/, 'SCRATCH'))).toEqual([
      expect.stringMatching(
        /^db_orders: Using bj_0007, started \S+Z, completed \S+Z \(.+ ago, age from its start\): the newest completed backup of orders-prod \(db_orders\)$/,
      ),
      'db_orders: createRestore',
      'db_orders: download',
      'db_orders: verify',
      'db_orders: restore into SCRATCH',
      'db_orders: analyze',
      'db_orders: check',
    ]);
    expect(lines[8]).toMatch(/^db_orders: passed: recovery time \d+\.\ds, backup age \S+$/);
    expect(lines).toContain('1 passed, 0 failed. The service was not told: API v1 has no operation to record a drill.');
    // A drill is never reported to the service as a result.
    expect(h.sb.requests.some((e) => e.method !== 'GET' && e.path !== '/api/v1/restores')).toBe(false);
  });

  it('--json: the drill document of contract 9, step 6 and 7, field by field', async () => {
    const { startedAt: begun, completedAt: completed } = await backup('bj_0007');
    const summary = JSON.parse((await svc(['recovery', 'summary', 'db_orders', '--json'], { env: h.sb.env('full') })).stdout);
    const started = Date.now();
    const r = await h.drill(['db_orders', '--json'], { token: 'full' });
    const ended = Date.now();
    expect(r.code, r.stderr).toBe(0);
    const d = r.doc!;
    expect(Object.keys(d)).toEqual(['startedAt', 'finishedAt', 'shard', 'scratch', 'serverVersion', 'isolation', 'databases', 'passed', 'failed']);
    // The tests run as root: the cluster runs as the postgres user (cli-contract 9.16).
    expect(d).toMatchObject({ shard: null, scratch: 'auto', isolation: 'os-user', passed: 1, failed: 0 });
    expect(Date.parse(d.startedAt)).toBeGreaterThanOrEqual(started - 1000);
    expect(Date.parse(d.finishedAt)).toBeGreaterThanOrEqual(Date.parse(d.startedAt));
    expect(Date.parse(d.finishedAt)).toBeLessThanOrEqual(ended + 1000);
    const postgres = execFileSync(join(findPgBinDir()!, 'postgres'), ['--version'], { encoding: 'utf8' });
    expect(postgres).toContain(`(PostgreSQL) ${d.serverVersion}`);

    expect(d.databases).toHaveLength(1);
    const db = d.databases[0]!;
    expect(Object.keys(db).sort()).toEqual(
      [
        'databaseId',
        'name',
        'result',
        'exitCode',
        'backupJobId',
        'backupStartedAt',
        'backupCompletedAt',
        'backupAgeSeconds',
        'restoreJobId',
        'recoveryTimeMs',
        'phases',
        'checks',
        'placeholderRoles',
        'notRestored',
        'receipt',
        'service',
        'fingerprint',
      ].sort(),
    );
    // cli-contract 9.17: the acme-orders dump's tables as restored, and the schema's digest.
    expect(db.fingerprint!.totals).toMatchObject({ tables: 2, rows: 6000 });
    expect(db.fingerprint!.schemaDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(db).toMatchObject({
      databaseId: 'db_orders',
      name: 'orders-prod',
      result: 'passed',
      exitCode: 0,
      backupJobId: 'bj_0007',
      backupStartedAt: begun,
      backupCompletedAt: completed,
    });
    // The recovery point proved: now minus startedAt (the dump's data is as of its start), as of the run.
    expect(db.backupAgeSeconds).toBeGreaterThanOrEqual(Math.floor((started - Date.parse(begun)) / 1000) - 1);
    expect(db.backupAgeSeconds).toBeLessThanOrEqual(Math.ceil((ended - Date.parse(begun)) / 1000) + 1);
    // The recovery time achieved: from createRestore to the last check, within the run.
    expect(db.recoveryTimeMs).toBeGreaterThan(0);
    expect(db.recoveryTimeMs!).toBeLessThan(ended - started);
    // A drill restores into a new database: every phase but in place's swap.
    expect(Object.keys(db.phases)).toEqual(PHASES.filter((p) => p !== 'swap'));
    expect(db.recoveryTimeMs!).toBeGreaterThanOrEqual(db.phases.restore! + db.phases.analyze!);
    expect(db.checks.map((c) => [c.name, c.status])).toEqual(BUILT_IN.map((c) => [c, 'passed']));
    expect(db.checks.find((c) => c.name === 'artifact_verified')!.detail).toBe(`${h.sb.artifact.sizeBytes} bytes, SHA-256 ${h.sb.artifact.sha256}`);
    expect(db.checks.find((c) => c.name === 'restore_clean')!.detail).toBe('pg_restore exit 0');
    expect(db.checks.find((c) => c.name === 'objects_present')!.detail).toBe('2 tables, 1 view, 3 sequences, 2 indexes');
    for (const c of db.checks) expect(c.durationMs).toBeGreaterThanOrEqual(0);
    expect(db.service).toEqual({ proofStatus: summary.latest.proofStatus, custodyStatus: summary.latest.custodyStatus });

    const receipt = db.receipt!;
    expect(receipt).toMatchObject({
      restoreJobId: db.restoreJobId,
      backupJobId: 'bj_0007',
      backupSelection: { rule: 'latest', backupJobId: 'bj_0007', startedAt: begun, completedAt: completed },
      backupStartedAt: begun,
      backupCompletedAt: completed,
      mode: 'new_database',
      artifact: { bytes: h.sb.artifact.sizeBytes, expectedSha256: h.sb.artifact.sha256, computedSha256: h.sb.artifact.sha256, verified: true },
      objects: { TABLE: 2, VIEW: 1, 'MATERIALIZED VIEW': 0, SEQUENCE: 3, INDEX: 2 },
      tableRowEstimates: { 'public.customers': 1000, 'public.orders': 5000 },
      // A drill always restores with --no-tablespaces, and its result says so (cli-contract 7.12).
      tablespaces: { named: [], ignored: true },
      outcome: 'restored',
      failure: null,
    });
    expect(receipt.phasesMs).toEqual(db.phases);
    expect(receipt.targetServerVersion).toMatch(new RegExp(`^${d.serverVersion!.replace('.', '\\.')}\\b`));
    const target = /^postgresql:\/\/postgres@127\.0\.0\.1:(\d+)\/(.+)$/.exec(receipt.targetRedactedDsn);
    expect(target?.[2]).toMatch(SCRATCH_DB);
    // The restore job is the service's: a new-database restore of db_orders (a drill is never in place).
    const job = JSON.parse((await svc(['restore', 'get', db.restoreJobId!, '--json'], { env: h.sb.env('full') })).stdout);
    expect(job.restoreJob).toMatchObject({ id: db.restoreJobId, databaseId: 'db_orders', mode: 'new_database' });
    expect(r.stderr).toContain(`restore into ${target![2]}`);
  });

  it('--parallel 2: two databases drilled at once in one cluster (their restores overlap); --parallel 1 drills one after the other', async () => {
    const overlap = (doc: DrillDocument['drill']) => {
      const [a, b] = doc.databases.map((x) => [Date.parse(x.receipt!.startedAt), Date.parse(x.receipt!.endedAt)] as const);
      return a![0] < b![1] && b![0] < a![1];
    };
    const together = await h.drill(['db_orders', 'db_billing', '--parallel', '2', '--json']);
    expect(together.code, together.stderr).toBe(0);
    expect(together.doc!.databases.map((x) => [x.databaseId, x.result])).toEqual([
      ['db_billing', 'passed'],
      ['db_orders', 'passed'],
    ]);
    expect(overlap(together.doc!)).toBe(true);
    // One cluster: both restores went to the same server (same port).
    const ports = together.doc!.databases.map((x) => /:(\d+)\//.exec(x.receipt!.targetRedactedDsn)![1]);
    expect(new Set(ports).size).toBe(1);

    const oneByOne = await h.drill(['db_orders', 'db_billing', '--json']);
    expect(oneByOne.code, oneByOne.stderr).toBe(0);
    expect(overlap(oneByOne.doc!)).toBe(false);
  });

  it('--all: two pass, db_analytics fails at backup_selected (no backup), the others go on; exit 13', async () => {
    const r = await h.drill(['--all', '--json']);
    expect(r.code).toBe(13);
    const d = r.doc!;
    expect(d.databases.map((x) => [x.databaseId, x.result])).toEqual([
      ['db_analytics', 'failed'],
      ['db_billing', 'passed'],
      ['db_orders', 'passed'],
    ]);
    expect(d).toMatchObject({ passed: 2, failed: 1 });
    const analytics = d.databases[0]!;
    expect(analytics).toMatchObject({
      exitCode: 7,
      backupJobId: null,
      restoreJobId: null,
      receipt: null,
      failure: { check: 'backup_selected', code: 'no_eligible_backup' },
    });
    expect(analytics.failure!.message).toContain('db_analytics');
    expect(analytics.checks.map((c) => [c.name, c.status])).toEqual(BUILT_IN.map((c, i) => [c, i === 0 ? 'failed' : 'skipped']));
    const lines = r.stderr.trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!).error).toMatchObject({
      code: 'drill_failed',
      message: 'The drill failed for 1 of 3 database(s): db_analytics (backup_selected).',
    });
    // The whole organization, from every page of listDatabases (the sandbox pages it two at a time).
    expect(h.sb.requests.filter((e) => e.path === '/api/v1/databases').length).toBeGreaterThanOrEqual(2);
  });

  it('--all --shard 1/2 and 2/2 drill exactly the organization between them, each database once', async () => {
    const one = await h.drill(['--all', '--shard', '1/2', '--json']);
    const two = await h.drill(['--all', '--shard', '2/2', '--json']);
    // Sorted by id: db_analytics, db_billing, db_orders; k-th to shard (k mod 2) + 1.
    expect(one.doc!.databases.map((x) => x.databaseId)).toEqual(['db_analytics', 'db_orders']);
    expect(two.doc!.databases.map((x) => x.databaseId)).toEqual(['db_billing']);
    expect([one.doc!.shard, two.doc!.shard]).toEqual(['1/2', '2/2']);
    expect([one.code, two.code]).toEqual([13, 0]);
    expect(JSON.parse(one.stderr.trimEnd().split('\n').at(-1)!).error.message).toBe('The drill failed for 1 of 2 database(s): db_analytics (backup_selected).');
    expect(one.doc!.databases.find((x) => x.databaseId === 'db_orders')!.result).toBe('passed');
  });

  it('SQL checks: a failing one fails the database (exit 13, check:<name>) showing its first 5 rows, values cut at 200 characters; a passing one passes', async () => {
    const file = checkFile(
      'orders.sql',
      [
        '-- Checks of the orders database.',
        '-- check: shipped_orders_have_no_note',
        "SELECT id, status, repeat('x', 250) || note AS long_note FROM orders WHERE status = 'shipped' AND note IS NOT NULL ORDER BY id;",
        '-- (a note between two checks)',
        '',
        '-- check: amounts_not_negative',
        'SELECT id FROM orders WHERE amount < 0',
      ].join('\n'),
    );
    const r = await h.drill(['db_orders', '--check', file, '--json']);
    expect(r.code).toBe(13);
    const db = r.doc!.databases[0]!;
    expect(db.checks.map((c) => [c.name, c.status])).toEqual([
      ...BUILT_IN.map((c) => [c, 'passed']),
      ['check:shipped_orders_have_no_note', 'failed'],
      ['check:amounts_not_negative', 'passed'],
    ]);
    expect(db).toMatchObject({ result: 'failed', exitCode: 13, failure: { check: 'check:shipped_orders_have_no_note', code: 'sql_check_failed' } });
    const detail = db.checks.find((c) => c.status === 'failed')!.detail!;
    expect(detail.startsWith('returned more than 5 rows; the first 5: ')).toBe(true);
    const rows = detail.slice('returned more than 5 rows; the first 5: '.length).split(' | ');
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      const m = /^id=(\d+), status=shipped, long_note=(x+)(.*)$/.exec(row);
      expect(m, row).not.toBeNull();
      // 250 x's and the note: cut to 200 characters and an ellipsis.
      expect(m![2]!.length + m![3]!.length).toBe(201);
      expect(m![3]).toBe('…');
    }
    expect(db.failure!.message).toBe(`SQL check shipped_orders_have_no_note (${file}): ${detail}.`);
    // The database was restored and is gone again.
    expect(db.receipt!.outcome).toBe('restored');
    expect(r.stderr).toMatch(/^db_orders: failed at check:shipped_orders_have_no_note: SQL check shipped_orders_have_no_note/m);
  });

  it('a failing check with 1 to 5 rows says how many it returned, every value shown', async () => {
    const file = checkFile('few.sql', "-- check: two_rows\nSELECT n, 'v' || n AS label FROM generate_series(1, 2) AS n\n");
    const r = await h.drill(['db_orders', '--check', file, '--json']);
    expect(r.code).toBe(13);
    expect(r.doc!.databases[0]!.checks.at(-1)).toMatchObject({
      name: 'check:two_rows',
      status: 'failed',
      detail: 'returned 2 rows; they are: n=1, label=v1 | n=2, label=v2',
    });
  });

  it('a check that tries to write is refused by the read-only transaction: the check fails, the restored data is unchanged', async () => {
    const setval = /setval\('public\.invoice_number_seq', (\d+), true\)/.exec(
      execFileSync(join(findPgBinDir()!, 'pg_restore'), ['-f', '-', join(h.sb.dataDir, 'artifacts', 'acme-orders.pgdump')], { encoding: 'utf8' }),
    )![1];
    const file = checkFile(
      'writes.sql',
      [
        '-- check: takes_an_invoice_number',
        "SELECT nextval('invoice_number_seq') AS n",
        '-- check: locks_orders',
        'SELECT id FROM orders WHERE id = 1 FOR UPDATE',
        '-- check: runs_read_only_with_a_60s_statement_timeout',
        "SELECT current_setting('transaction_read_only') AS ro, current_setting('statement_timeout') AS timeout",
        "WHERE current_setting('transaction_read_only') <> 'on' OR current_setting('statement_timeout') <> '1min'",
      ].join('\n'),
    );
    const r = await h.drill(['db_orders', '--check', file, '--keep', '--json'], { keeps: true });
    try {
      expect(r.code).toBe(13);
      const checks = r.doc!.databases[0]!.checks;
      expect(checks.slice(-3).map((c) => [c.name, c.status])).toEqual([
        ['check:takes_an_invoice_number', 'failed'],
        ['check:locks_orders', 'failed'],
        ['check:runs_read_only_with_a_60s_statement_timeout', 'passed'],
      ]);
      // The check role may read the sequence, never use it: refused before the read-only transaction is asked.
      expect(checks.at(-3)!.detail).toMatch(/^the query failed: ERROR: +permission denied for sequence invoice_number_seq/);
      expect(checks.at(-2)!.detail).toMatch(/^the query failed: ERROR: +cannot execute SELECT FOR UPDATE in a read-only transaction/);
      // The kept database: the sequence as the archive left it, every row there.
      const kept = keptDatabase(r.stderr);
      expect(await kept.psql('SELECT last_value FROM invoice_number_seq')).toBe(setval);
      expect(await kept.psql('SELECT count(*) FROM orders')).toBe('5000');
    } finally {
      await stopKept(r.stderr, r.workDir, 'db_orders');
    }
  });

  it('a psql meta-command inside a check is sent to the server as SQL, never obeyed: the check fails, no file is made', async () => {
    const marker = join(h.workDir(), 'meta-command-ran');
    const file = checkFile('meta.sql', `-- check: sneaky\nSELECT 1 WHERE false\n\\! touch ${marker}\n`);
    const r = await h.drill(['db_orders', '--check', file, '--json']);
    expect(r.code).toBe(13);
    expect(r.doc!.databases[0]!.checks.at(-1)).toMatchObject({
      name: 'check:sneaky',
      status: 'failed',
      detail: expect.stringMatching(/^the query failed: ERROR: +syntax error/),
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('--max-age: a backup younger than it passes max_age; an older one fails the database (exit 13) after a full restore', async () => {
    const completed = Date.parse((await backup('bj_0007')).completedAt);
    const days = Math.ceil((Date.now() - completed) / 86_400_000) + 1;
    // In human form, with a report: its max_age check is in drill.json.
    const report = join(h.workDir(), 'report');
    const ok = await h.drill(['db_orders', '--max-age', `${days}d`, '--report', report]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain(`Report: ${report}/drill.md, drill.json, junit.xml and receipts/.`);
    const passed = (JSON.parse(readFileSync(join(report, 'drill.json'), 'utf8')) as DrillDocument).drill.databases[0]!;
    rmSync(report, { recursive: true });
    expect(passed.checks.map((c) => c.name)).toEqual([...BUILT_IN, 'max_age']);
    expect(passed.checks.at(-1)).toMatchObject({
      name: 'max_age',
      status: 'passed',
      detail: expect.stringMatching(new RegExp(`^backup age \\S+ \\(from its start\\), at most ${days}d$`)),
    });

    const old = await h.drill(['db_orders', '--max-age', '90m', '--json']);
    expect(old.code).toBe(13);
    const db = old.doc!.databases[0]!;
    expect(db.checks.map((c) => [c.name, c.status])).toEqual([...BUILT_IN.map((c) => [c, 'passed']), ['max_age', 'failed']]);
    expect(db.failure).toMatchObject({ check: 'max_age', code: 'max_age_exceeded' });
    expect(db.failure!.message).toMatch(/^The newest restorable backup is older than --max-age: backup age \S+ \(from its start\), at most 90m\.$/);
  });

  it('the Report: line names the --metrics-file it wrote too', async () => {
    const report = join(h.workDir(), 'report-and-metrics');
    const metrics = join(h.workDir(), 'svc_drill.prom');
    const r = await h.drill(['db_orders', '--report', report, '--metrics-file', metrics]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Report: ${report}/drill.md, drill.json, junit.xml and receipts/; metrics: ${metrics}.`);
    expect(readFileSync(metrics, 'utf8')).toContain('svc_restore_drill_last_success_timestamp_seconds');
    rmSync(report, { recursive: true });
  });

  it("--report DIR: drill.json, drill.md, junit.xml and receipts/<id>.json, each 0644; each receipt is its database's in drill.json", async () => {
    const report = join(h.workDir(), 'report');
    const r = await h.drill(['--all', '--report', report, '--json']);
    expect(r.code).toBe(13);
    expect(readdirSync(report).sort()).toEqual(['drill.json', 'drill.md', 'junit.xml', 'receipts']);
    expect(readdirSync(join(report, 'receipts')).sort()).toEqual(['db_billing.json', 'db_orders.json']);
    for (const f of ['drill.json', 'drill.md', 'junit.xml', 'receipts/db_billing.json', 'receipts/db_orders.json']) {
      expect((statSync(join(report, f)).mode & 0o777).toString(8), f).toBe('644');
    }
    const doc = JSON.parse(readFileSync(join(report, 'drill.json'), 'utf8')) as DrillDocument;
    // The file is the --json document.
    expect(doc.drill).toEqual(r.doc);
    for (const db of doc.drill.databases.filter((x) => x.receipt)) {
      expect(JSON.parse(readFileSync(join(report, 'receipts', `${db.databaseId}.json`), 'utf8'))).toEqual(db.receipt);
    }
    expectMarkdownMatchesDocument(readFileSync(join(report, 'drill.md'), 'utf8'), doc);
    expectJunitMatchesDocument(await readJunit(join(report, 'junit.xml')), doc);
    rmSync(report, { recursive: true });
  });

  it('--keep: the scratch database stays, reachable with the psql line printed; the cluster is stopped with the line after it', async () => {
    const r = await h.drill(['db_orders', '--keep'], { keeps: true });
    try {
      expect(r.code, r.stderr).toBe(0);
      const kept = keptDatabase(r.stderr);
      expect(kept.database).toMatch(SCRATCH_DB);
      expect(await kept.psql('SELECT count(*) FROM customers')).toBe('1000');
      // The cluster lives in the work dir while kept.
      expect(readdirSync(r.workDir)).toEqual([expect.stringMatching(/^svc-drill-/)]);
      expect(processesIn(r.workDir).length).toBeGreaterThan(0);
    } finally {
      await stopKept(r.stderr, r.workDir, 'db_orders');
    }
    expectNothingLeft(r.workDir);
  });

  it('--dry-run creates nothing: no restore job, no cluster, no postgres process; --json plans each database (exit 0 when each has a backup)', async () => {
    const before = h.restoresCreated();
    const { startedAt: begun, completedAt: completed } = await backup('bj_0007');
    const r = await h.drill(['db_orders', 'db_billing', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(h.restoresCreated()).toBe(before);
    expect(r.doc).toMatchObject({ scratch: 'auto', passed: 2, failed: 0 });
    expect(r.doc!.databases.map((x) => [x.databaseId, x.result, x.backupJobId])).toEqual([
      ['db_billing', 'planned', 'bj_0005'],
      ['db_orders', 'planned', 'bj_0007'],
    ]);
    const orders = r.doc!.databases[1]!;
    expect(orders).toMatchObject({ backupCompletedAt: completed, restoreJobId: null, receipt: null, recoveryTimeMs: null, exitCode: 0 });
    expect(orders.backupStartedAt).toBe(begun);
    expect(Math.abs(orders.backupAgeSeconds! - (Date.now() - Date.parse(begun)) / 1000)).toBeLessThan(60);
    expect(r.stderr).toMatch(/^Scratch server: PostgreSQL \d+\.\d+ from \S+ \(/m);
  });

  it('--dry-run --all: the database without a backup is planned as failed (backup_selected), exit 13, still nothing created', async () => {
    const before = h.restoresCreated();
    const r = await h.drill(['--all', '--dry-run', '--json']);
    expect(r.code).toBe(13);
    expect(h.restoresCreated()).toBe(before);
    expect(r.doc!.databases.map((x) => [x.databaseId, x.result])).toEqual([
      ['db_analytics', 'failed'],
      ['db_billing', 'planned'],
      ['db_orders', 'planned'],
    ]);
    expect(r.doc!.databases[0]).toMatchObject({
      backupJobId: null,
      backupCompletedAt: null,
      backupAgeSeconds: null,
      failure: { check: 'backup_selected', code: 'no_eligible_backup' },
    });
    expect(r.stderr).toContain('The drill would fail: no backup to drill for 1 of 3 database(s): db_analytics (backup_selected).');
  });

  it('--dry-run in human form: the plan table, and a summary that nothing was created', async () => {
    const r = await h.drill(['db_orders', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const rows = tableRows(r.stdout);
    expect(rows[1]!.slice(0, 3)).toEqual(['db_orders', 'orders-prod', 'bj_0007']);
    expect(rows[1]).toContain('planned');
    expect(r.stderr).toContain('Dry run: 1 database(s) have a backup to drill, 0 have none. Nothing was created.');
  });

  /** The kept database from the `psql -h <dir> -p <port> -U postgres -d <db>` line --keep printed. */
  function keptDatabase(stderr: string): { database: string; psql: (sql: string) => Promise<string> } {
    const line = /^db_orders: kept: (psql .+)$/m.exec(stderr)?.[1];
    expect(line, stderr).toBeDefined();
    const args = line!.split(' ').slice(1);
    expect(args).toEqual(['-h', expect.any(String), '-p', expect.stringMatching(/^\d+$/), '-U', 'postgres', '-d', expect.any(String)]);
    return {
      database: args[7]!,
      psql: async (sql) =>
        (await execa('psql', [...args, '-X', '-A', '-t', '-c', sql], { env: { PATH: process.env.PATH, LC_ALL: 'C' }, extendEnv: false })).stdout.trim(),
    };
  }
});
