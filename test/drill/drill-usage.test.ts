/**
 * Bad input to `svc restore drill` is exit 2 before any request (cli-contract 3 and 9): the
 * sandbox's request log stays as it was, nothing is started, nothing is left in the work dir.
 * The built CLI against the sandbox.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';

describe('svc restore drill: bad input is exit 2 before any request', () => {
  const h = new DrillE2e();
  const d = mkdtempSync(join(tmpdir(), 'svc-drill-usage-'));
  const files = {
    good: join(d, 'good.sql'),
    empty: join(d, 'empty.sql'),
    dupA: join(d, 'dup-a.sql'),
    dupB: join(d, 'dup-b.sql'),
    lead: join(d, 'lead.sql'),
    missing: join(d, 'missing.sql'),
    dir: join(d, 'a-dir.sql'),
    notADir: join(d, 'good.sql', 'report'),
  };
  beforeAll(async () => {
    writeFileSync(files.good, '-- check: fine\nSELECT 1 WHERE false\n');
    writeFileSync(files.empty, '');
    writeFileSync(files.dupA, '-- check: same_name\nSELECT 1 WHERE false\n');
    writeFileSync(files.dupB, '-- check: other\nSELECT 1 WHERE false\n-- check: same_name\nSELECT 2 WHERE false\n');
    writeFileSync(files.lead, 'SELECT 1;\n-- check: late\nSELECT 1 WHERE false\n');
    mkdirSync(files.dir);
    await h.start();
  }, 120_000);
  afterAll(async () => {
    await h.stop();
    rmSync(d, { recursive: true, force: true });
  });

  const cases: Array<[string, () => string[], string | RegExp]> = [
    ['--shard 0/2', () => ['--all', '--shard', '0/2'], 'Invalid --shard "0/2": use i/n with 1 <= i <= n <= 1000, e.g. --shard 2/8.'],
    ['--shard 3/2', () => ['--all', '--shard', '3/2'], 'Invalid --shard "3/2": use i/n with 1 <= i <= n <= 1000, e.g. --shard 2/8.'],
    ['--shard 1/1001', () => ['--all', '--shard', '1/1001'], 'Invalid --shard "1/1001": use i/n with 1 <= i <= n <= 1000, e.g. --shard 2/8.'],
    ['--shard 1of2', () => ['--all', '--shard', '1of2'], 'Invalid --shard "1of2": use i/n with 1 <= i <= n <= 1000, e.g. --shard 2/8.'],
    ['--max-age 1.5h', () => ['db_orders', '--max-age', '1.5h'], 'Invalid --max-age "1.5h": a whole number and a unit, s, m, h, d or w (90m, 26h, 7d).'],
    ['--max-age 0d', () => ['db_orders', '--max-age', '0d'], 'Invalid --max-age "0d": a whole number and a unit, s, m, h, d or w (90m, 26h, 7d).'],
    ['--max-age 26', () => ['db_orders', '--max-age', '26'], 'Invalid --max-age "26": a whole number and a unit, s, m, h, d or w (90m, 26h, 7d).'],
    [
      '--before yesterday',
      () => ['db_orders', '--before', 'yesterday'],
      'Invalid --before "yesterday": use ISO 8601 with a time zone, e.g. 2026-11-20T14:30:00Z.',
    ],
    [
      '--before without a zone',
      () => ['db_orders', '--before', '2026-11-21T06:00:00'],
      'Invalid --before "2026-11-21T06:00:00": use ISO 8601 with a time zone, e.g. 2026-11-20T14:30:00Z.',
    ],
    [
      '--before month 13',
      () => ['db_orders', '--before', '2026-13-01T00:00:00Z'],
      'Invalid --before "2026-13-01T00:00:00Z": use ISO 8601 with a time zone, e.g. 2026-11-20T14:30:00Z.',
    ],
    ['--parallel 0', () => ['--all', '--parallel', '0'], 'Invalid --parallel "0": a whole number from 1 to 8.'],
    ['--parallel 9', () => ['--all', '--parallel', '9'], 'Invalid --parallel "9": a whole number from 1 to 8.'],
    ['--parallel two', () => ['--all', '--parallel', 'two'], 'Invalid --parallel "two": a whole number from 1 to 8.'],
    ['a missing --check file', () => ['db_orders', '--check', files.missing], `Cannot read --check ${files.missing}: ENOENT.`],
    ['a --check that is a directory', () => ['db_orders', '--check', files.dir], `Cannot read --check ${files.dir}: EISDIR.`],
    [
      'an empty --check file',
      () => ['db_orders', '--check', files.good, '--check', files.empty],
      `${files.empty} holds no check: introduce each with a line "-- check: <name>".`,
    ],
    [
      'a check name in two files',
      () => ['db_orders', '--check', files.dupA, '--check', files.dupB],
      `Check "same_name" is defined twice (${files.dupA} and ${files.dupB}): check names must be unique.`,
    ],
    [
      'SQL before the first marker',
      () => ['db_orders', '--check', files.lead],
      `${files.lead}: SQL before the first "-- check: <name>" line belongs to no check.`,
    ],
    ['ids with --all', () => ['db_orders', '--all'], 'Give database ids or --all, not both.'],
    ['neither ids nor --all', () => [], 'Name the databases to drill, or --all for every database of the organization.'],
    ['--backup with two databases', () => ['db_orders', 'db_billing', '--backup', 'bj_0007'], '--backup names one backup: drill exactly one database with it.'],
    ['--backup with --all', () => ['--all', '--backup', 'bj_0007'], '--backup names one backup: drill exactly one database with it.'],
    [
      '--backup with --before',
      () => ['db_orders', '--backup', 'bj_0007', '--before', '2026-11-22T00:00:00Z'],
      '--backup, --latest and --before each choose the backup: give one of them.',
    ],
    [
      '--latest with --before',
      () => ['db_orders', '--latest', '--before', '2026-11-22T00:00:00Z'],
      '--backup, --latest and --before each choose the backup: give one of them.',
    ],
    [
      '--pg-bindir with a scratch DSN',
      () => ['db_orders', '--scratch', 'postgresql://ops@127.0.0.1:5432/postgres', '--pg-bindir', '/usr/lib/postgresql/15/bin'],
      '--pg-bindir is for --scratch auto; a scratch DSN names a server that runs already.',
    ],
    [
      'a scratch DSN with a parameter svc cannot pass on',
      () => ['db_orders', '--scratch', 'postgresql://ops@127.0.0.1:5432/postgres?replication=true'],
      /replication/,
    ],
    ['an empty database id', () => ['', 'db_orders'], 'Invalid database id "": it must not be empty.'],
    ['--jobs 0', () => ['db_orders', '--jobs', '0'], 'Invalid --jobs "0": a whole number from 1 to 64.'],
    ['--connections 17', () => ['db_orders', '--connections', '17'], 'Invalid --connections "17": a whole number from 1 to 16.'],
  ];

  it.each(cases)('%s', async (_what, args, message) => {
    const before = h.sb.requests.length;
    const r = await h.drill(args());
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    if (typeof message === 'string') expect(r.stderr.split('\n')).toContain(`error: ${message}`);
    else expect(r.stderr).toMatch(message);
    expect(h.sb.requests.length).toBe(before);
  });

  // These are found in the preflight, after pg_restore was looked for: they need the client tools.
  describe.skipIf(!!pgSkipReason())('found by the preflight, still before any request', () => {
    // No server binaries is exit 11 (cli-contract 9.2), an explicit directory without them included.
    it('--pg-bindir naming a directory without the server programs: exit 11', async () => {
      const before = h.sb.requests.length;
      const empty = h.workDir();
      const r = await h.drill(['db_orders', '--pg-bindir', empty]);
      expect(r.code).toBe(11);
      expect(r.stderr).toContain(`error: --pg-bindir ${empty} has no initdb, pg_ctl, postgres: it must be the directory of the PostgreSQL server programs.`);
      expect(h.sb.requests.length).toBe(before);
    });

    it('SVC_PG_BINDIR naming one is named as such: exit 11', async () => {
      const before = h.sb.requests.length;
      const empty = h.workDir();
      const r = await h.drill(['db_orders'], { env: { SVC_PG_BINDIR: empty } });
      expect(r.code).toBe(11);
      expect(r.stderr).toContain(`error: SVC_PG_BINDIR ${empty} has no initdb, pg_ctl, postgres`);
      expect(h.sb.requests.length).toBe(before);
    });

    it('--report naming a path under a file', async () => {
      const before = h.sb.requests.length;
      const r = await h.drill(['db_orders', '--report', files.notADir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error: --report ${files.notADir} cannot be created or written to.`);
      expect(h.sb.requests.length).toBe(before);
    });
  });
});
