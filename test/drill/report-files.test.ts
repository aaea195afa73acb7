/**
 * The drill's report (cli-contract 9, step 7): drill.md for a CI job summary, junit.xml for a CI test
 * view, drill.json and receipts/<databaseId>.json. JUnit is read by a real XML parser (python3's
 * ElementTree) and held against the document it was written from; ids and messages carry the
 * characters that break naive writers.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatabaseDrill, DrillCheck, DrillDocument } from '../../src/drill/document.js';
import { drillJunit, drillMarkdown, receiptFileName, writeReport } from '../../src/drill/report-files.js';
import { UserFiles } from '../../src/output/user-file.js';
import type { Receipt } from '../../src/restore/receipt.js';
import { SecretScrubber } from '../../src/secrets.js';
import { asXmlAttribute, expectJunitMatchesDocument, expectMarkdownMatchesDocument, markdownCells, markdownTableRows } from '../support/drill-report.js';
import { readJunit } from '../support/junit.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-drill-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `r${++n}`);
const writer = new UserFiles(new SecretScrubber());

const check = (name: DrillCheck['name'], status: DrillCheck['status'], durationMs = 0, detail?: string): DrillCheck => ({
  name,
  status,
  durationMs,
  ...(detail === undefined ? {} : { detail }),
});

function receipt(id: string, backupJobId: string): Receipt {
  return {
    svcVersion: '0.1.0',
    nodeVersion: '20.20.0',
    pgRestoreVersion: 'pg_restore (PostgreSQL) 15.18',
    targetServerVersion: '15.18',
    restoreJobId: `rj_${id}`,
    backupJobId,
    backupSelection: { rule: 'latest', backupJobId, startedAt: '2026-11-24T00:40:00Z', completedAt: '2026-11-24T01:00:00Z' },
    backupStartedAt: '2026-11-24T00:40:00Z',
    backupCompletedAt: '2026-11-24T01:00:00Z',
    mode: 'new_database',
    targetRedactedDsn: `postgresql://postgres@127.0.0.1:5432/svc_drill_${id}_0a1b2c3d`,
    artifact: { bytes: 95129, expectedSha256: 'a'.repeat(64), computedSha256: 'a'.repeat(64), verified: true },
    connections: 8,
    phasesMs: { preflight: 5, createRestore: 4, download: 9, verify: 3, restore: 120, analyze: 30, check: 12 },
    objects: { TABLE: 2, VIEW: 1, 'MATERIALIZED VIEW': 0, SEQUENCE: 3, INDEX: 2 },
    tableRowEstimates: { 'public.orders': 5000 },
    databaseOptions: null,
    databaseSettings: null,
    tablespaces: null,
    rowsMatch: { tables: 2, archiveRows: 6000, restoredRows: 6000, mismatches: [], extensionTables: 0, uncounted: 0 },
    notRestored: [],
    placeholderRoles: [],
    startedAt: '2026-11-24T07:00:00.000Z',
    endedAt: '2026-11-24T07:00:00.300Z',
    outcome: 'restored',
    failure: null,
  };
}

function passed(id: string, name: string | null, extra: DrillCheck[] = []): DatabaseDrill {
  return {
    databaseId: id,
    name,
    result: 'passed',
    exitCode: 0,
    backupJobId: 'bj_0007',
    backupStartedAt: '2026-11-24T00:40:00Z',
    backupCompletedAt: '2026-11-24T01:00:00Z',
    backupAgeSeconds: 22_000,
    restoreJobId: `rj_${id}`,
    recoveryTimeMs: 1234,
    phases: { restore: 120 },
    checks: [
      check('backup_selected', 'passed', 7, 'Using bj_0007.'),
      check('artifact_verified', 'passed', 16),
      check('restore_clean', 'passed', 150),
      check('objects_present', 'passed', 12),
      check('data_present', 'passed', 3),
      check('rows_match', 'passed', 5, '2 table(s), 6,000 row(s), each as many as the archive holds'),
      ...extra,
    ],
    receipt: receipt(id, 'bj_0007'),
    service: { proofStatus: 'verified', custodyStatus: 'complete' },
  };
}

/** A failure of a SQL check whose rows hold every character a report must survive. */
const NASTY = 'row 1: a|b, c\\|d\nrow 2: <tag attr="x">&amp; \u0001\u0008\u000b\u000c\u001b[31mred\u0007 \t tab\r\nend ]]> \ufffe';
const NASTY_ID = 'db_<&>"\'|x\u0001';

function document(): DrillDocument {
  const sqlFailed = passed(NASTY_ID, 'na|me\nsecond line', [
    check('max_age', 'passed', 0, 'backup age 6h, at most 1d'),
    check('check:no_negative', 'failed', 42, NASTY),
    check('check:after', 'passed', 5),
  ]);
  Object.assign(sqlFailed, {
    result: 'failed',
    exitCode: 13,
    failure: { check: 'check:no_negative', code: 'sql_check_failed', message: `SQL check no_negative (checks.sql): ${NASTY}.` },
  });
  const noBackup: DatabaseDrill = {
    ...passed('db_analytics', 'analytics'),
    result: 'failed',
    exitCode: 7,
    failure: {
      check: 'backup_selected',
      code: 'no_eligible_backup',
      message: 'No completed backup with an artifact of analytics (db_analytics): there is nothing to restore.',
    },
    backupJobId: null,
    backupCompletedAt: null,
    backupAgeSeconds: null,
    restoreJobId: null,
    recoveryTimeMs: null,
    phases: {},
    receipt: null,
    service: null,
    checks: [
      check('backup_selected', 'failed', 5, 'No completed backup with an artifact of analytics (db_analytics): there is nothing to restore.'),
      ...['artifact_verified', 'restore_clean', 'objects_present', 'data_present', 'rows_match'].map((c) =>
        check(c as DrillCheck['name'], 'skipped', 0, 'no backup selected'),
      ),
    ],
  };
  const twoFailed = passed('db_two', 'db_two');
  twoFailed.checks[4] = check('data_present', 'failed', 4, 'no restored table has a row');
  twoFailed.checks.push(check('check:also', 'failed', 3, 'returned 1 row; they are: x=1'));
  Object.assign(twoFailed, {
    result: 'failed',
    exitCode: 13,
    failure: { check: 'data_present', code: 'no_data', message: 'The archive holds table data, but no restored table has a row.' },
  });
  return {
    drill: {
      startedAt: '2026-11-24T07:00:00.000Z',
      finishedAt: '2026-11-24T07:00:09.000Z',
      shard: '2/3',
      scratch: 'auto',
      serverVersion: '15.18',
      isolation: 'namespace',
      databases: [noBackup, passed('db_billing', 'billing'), twoFailed, sqlFailed, passed('db_orders', 'orders-prod')],
      passed: 2,
      failed: 3,
    },
  };
}

describe('drill.md', () => {
  const md = drillMarkdown(document());

  it('one table row per database, in order, whatever pipes and newlines its name or failure holds', () => {
    const rows = markdownTableRows(md);
    expect(rows).toEqual([
      ['db_analytics (analytics)', '-', '-', '-', '**failed**', 'backup_selected'],
      ['db_billing (billing)', 'bj_0007', '6h6m', '1.2s', 'passed', ''],
      ['db_two', 'bj_0007', '6h6m', '1.2s', '**failed**', 'data_present'],
      ['db_<&>"\'|x (na|me\\nsecond line)', 'bj_0007', '6h6m', '1.2s', '**failed**', 'check:no_negative'],
      ['db_orders (orders-prod)', 'bj_0007', '6h6m', '1.2s', 'passed', ''],
    ]);
    expectMarkdownMatchesDocument(md, document());
  });

  it('says the totals, the shard, the time span and the scratch server', () => {
    expect(md).toContain(
      '2 passed, 3 failed (shard 2/3); 2026-11-24T07:00:00.000Z to 2026-11-24T07:00:09.000Z; scratch auto (PostgreSQL 15.18), isolation namespace.',
    );
  });

  it('then each failure: its check, code and exit class, and its message on one line (pipes escaped)', () => {
    const failures = md.slice(md.indexOf('## Failures'));
    const sections = failures
      .split('\n### ')
      .slice(1)
      .map((s) => s.split('\n').filter(Boolean));
    expect(sections.map((s) => s[0])).toEqual(['db_analytics (analytics)', 'db_two', 'db_\\<&\\>"\'\\|x (na\\|me\\\\nsecond line)']);
    expect(sections[0]!.slice(1, 4)).toEqual([
      '- check: `backup_selected`',
      '- code: `no_eligible_backup` (exit 7)',
      '- No completed backup with an artifact of analytics (db_analytics): there is nothing to restore.',
    ]);
    // A second failed check of the same database is listed after the first.
    expect(sections[1]!.slice(1, 5)).toEqual([
      '- check: `data_present`',
      '- code: `no_data` (exit 13)',
      '- The archive holds table data, but no restored table has a row.',
      '- also failed: `check:also`: returned 1 row; they are: x=1',
    ]);
    const message = sections[2]![3]!;
    expect(
      message.startsWith('- SQL check no_negative (checks.sql): row 1: a\\|b, c\\\\\\|d\\\\nrow 2: \\<tag attr="x"\\>&amp; [31mred \t tab\\\\nend ]]\\> '),
    ).toBe(true);
    // No raw newline: the whole message is one list item, and no unescaped pipe.
    expect(markdownCells(`|${message.slice(2)}|`)).toHaveLength(1);
  });

  it('ends by saying the service was not told', () => {
    expect(md).toContain('It is evidence of this run only: the service was not told (API v1 has no operation to record it).');
  });

  it('an empty run (an empty shard): a header row and no failures section', () => {
    const empty: DrillDocument = { drill: { ...document().drill, databases: [], passed: 0, failed: 0 } };
    const text = drillMarkdown(empty);
    expect(markdownTableRows(text)).toEqual([]);
    expect(text).not.toContain('## Failures');
  });
});

describe('junit.xml, read by a real XML parser', () => {
  it('one <testsuite name="svc restore drill">, one testcase per database and check, counts that add up', async () => {
    const doc = document();
    const path = join(dir, 'junit.xml');
    writeFileSync(path, drillJunit(doc));
    const suite = await readJunit(path);
    expectJunitMatchesDocument(suite, doc);
    expect(suite.attributes).toMatchObject({ tests: '34', failures: '4', skipped: '5', timestamp: '2026-11-24T07:00:00.000Z' });
    // The suite's time is the sum of its cases.
    expect(Number(suite.attributes.time)).toBeCloseTo(
      suite.cases.reduce((a, c) => a + Number(c.time), 0),
      3,
    );
  });

  it('ids and messages with XML special and control characters arrive as text, with the characters XML cannot hold left out', async () => {
    const doc = document();
    const path = join(dir, 'nasty.xml');
    writeFileSync(path, drillJunit(doc));
    const suite = await readJunit(path);
    const failed = suite.cases.find((c) => c.name === 'check:no_negative')!;
    expect(failed.classname).toBe('db_<&>"\'|x');
    expect(failed.failure!.type).toBe('sql_check_failed');
    expect(failed.failure!.message).toBe(asXmlAttribute(NASTY));
    expect(failed.failure!.text).toBe('row 1: a|b, c\\|d\nrow 2: <tag attr="x">&amp; [31mred \t tab\nend ]]> ');
    // A second failed check of a database is a failure too, typed as a check failure.
    expect(suite.cases.find((c) => c.classname === 'db_two' && c.name === 'check:also')!.failure!.type).toBe('check_failed');
    expect(suite.cases.find((c) => c.classname === 'db_two' && c.name === 'data_present')!.failure!.type).toBe('no_data');
  });

  it('an empty run is still a well-formed suite of no tests', async () => {
    const path = join(dir, 'empty.xml');
    writeFileSync(path, drillJunit({ drill: { ...document().drill, databases: [], passed: 0, failed: 0 } }));
    const suite = await readJunit(path);
    expect(suite).toEqual({ tag: 'testsuite', attributes: expect.objectContaining({ tests: '0', failures: '0', skipped: '0' }), cases: [] });
  });
});

describe('writeReport (--report DIR)', () => {
  const modes = (root: string) => {
    const out: Record<string, string> = {};
    for (const f of ['drill.json', 'drill.md', 'junit.xml', ...readdirSync(join(root, 'receipts')).map((r) => `receipts/${r}`)])
      out[f] = (statSync(join(root, f)).mode & 0o777).toString(8);
    return out;
  };

  it("drill.json is the document; each receipt is its database's, under a file name that stays inside receipts/", async () => {
    const root = fresh();
    const doc = document();
    doc.drill.databases.push(passed('../../escape', null), passed('.hidden', null));
    await writeReport(root, doc, writer);
    expect(JSON.parse(readFileSync(join(root, 'drill.json'), 'utf8'))).toEqual(doc);
    const files = readdirSync(join(root, 'receipts')).sort();
    // No receipt for a database that never reached the restore.
    expect(files).toEqual(
      ['%2E%2E%2F%2E%2E%2Fescape.json', '%2Ehidden.json', 'db_billing.json', 'db_orders.json', 'db_two.json', `${receiptFileName(NASTY_ID)}`].sort(),
    );
    expect(readdirSync(root).sort()).toEqual(['drill.json', 'drill.md', 'junit.xml', 'receipts']);
    for (const db of doc.drill.databases.filter((d) => d.receipt)) {
      expect(JSON.parse(readFileSync(join(root, 'receipts', receiptFileName(db.databaseId)), 'utf8'))).toEqual(db.receipt);
    }
    expect(receiptFileName(NASTY_ID)).not.toMatch(/[/<>"|\u0001]/);
  });

  it('every file is mode 0644 (none holds a secret), even under a umask of 077 and over files of an earlier run', async () => {
    const root = fresh();
    const previous = process.umask(0o077);
    try {
      await writeReport(root, document(), writer);
      expect(
        Object.values(modes(root)).every((m) => m === '644'),
        JSON.stringify(modes(root)),
      ).toBe(true);
      // A second run into the same directory (a CI runner reusing its workspace).
      await writeReport(root, document(), writer);
      expect(
        Object.values(modes(root)).every((m) => m === '644'),
        JSON.stringify(modes(root)),
      ).toBe(true);
    } finally {
      process.umask(previous);
    }
  });
});
