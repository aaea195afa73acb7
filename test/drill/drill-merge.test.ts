/**
 * `svc restore drill merge` (cli-contract 9.15): real shard reports of the sandbox organization
 * (db_analytics, db_billing, db_orders; --shard i/3 gives one database each, db_analytics having no
 * backup to drill) merged into the organization's report, with the shard that is missing, the database
 * reported twice and the report that does not fit the schema each named.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { drillDocumentSchema } from '../../src/drill/document-schema.js';
import { svc } from '../e2e/helpers.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { readJunit } from '../support/junit.js';
import { pgSkipReason } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-merge.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('svc restore drill merge', { timeout: 180_000 }, () => {
  const h = new DrillE2e();
  let dir: string;
  const report = (i: number) => join(dir, `report-${i}`);
  const merge = (args: string[]) => svc(['restore', 'drill', 'merge', ...args], { env: h.sb.env('drill') });
  const doc = (path: string) => JSON.parse(readFileSync(join(path, 'drill.json'), 'utf8')) as DrillDocument;

  beforeAll(async () => {
    await h.start();
    dir = mkdtempSync(join(tmpdir(), 'svc-merge-'));
    for (const i of [1, 2, 3]) {
      const r = await h.drill(['--all', '--shard', `${i}/3`, '--report', report(i)]);
      expect(r.code, r.stderr).toBe(i === 1 ? 13 : 0);
    }
  }, 170_000);
  afterAll(async () => {
    await h.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a missing shard is named, its absence fails the merge (13), and what is there is merged as one run', async () => {
    const out = join(dir, 'org-partial');
    const r = await merge([report(2), report(3), '--report', out]);
    expect(r.code, r.stderr).toBe(13);
    expect(r.stderr).toContain('Missing shard(s): 1/3');
    expect(r.stderr).toContain("The organization's drill did not pass: report(s) missing: 1/3.");
    const merged = doc(out).drill;
    expect(drillDocumentSchema.safeParse(doc(out)).success).toBe(true);
    expect(merged.databases.map((d) => d.databaseId)).toEqual(['db_billing', 'db_orders']);
    expect(merged.merge).toMatchObject({ shards: ['2/3', '3/3'], missingShards: ['1/3'], duplicates: [] });
    expect(merged.startedAt).toBe(doc(report(2)).drill.startedAt);
    expect(merged.finishedAt).toBe(doc(report(3)).drill.finishedAt);
    expect(readFileSync(join(out, 'drill.md'), 'utf8')).toContain('**Missing: 1/3**');
    expect(readdirSync(join(out, 'receipts')).sort()).toEqual(['db_billing.json', 'db_orders.json']);
    const junit = await readJunit(join(out, 'junit.xml'));
    expect(new Set(junit.cases.map((c) => c.classname))).toEqual(new Set(['db_billing', 'db_orders']));
  });

  it('every shard: the failed database fails the merge and is named; stdout is the organization table', async () => {
    const out = join(dir, 'org');
    const r = await merge([report(1), report(2), report(3), '--report', out]);
    expect(r.code, r.stderr).toBe(13);
    expect(r.stderr).toContain('1 of 3 database(s) failed (db_analytics)');
    expect(r.stdout).toMatch(/db_analytics\s.*failed\s+backup_selected/);
    expect(doc(out).drill).toMatchObject({
      passed: 2,
      failed: 1,
      shard: null,
      isolation: 'os-user',
      merge: { shards: ['1/3', '2/3', '3/3'], missingShards: [] },
    });
  });

  it('a database reported by two shards is named once, the later report kept; all passed is exit 0', async () => {
    // A re-run of shard 1 after the organization changed: it now holds db_billing.
    const rerun = join(dir, 'report-1-rerun');
    cpSync(report(2), rerun, { recursive: true });
    const d = doc(rerun);
    d.drill.shard = '1/3';
    d.drill.finishedAt = new Date(Date.parse(doc(report(3)).drill.finishedAt) + 60_000).toISOString();
    // A runner where no namespace could be made: the organization's drills were only as isolated as that (cli-contract 9.16).
    d.drill.isolation = 'none';
    writeFileSync(join(rerun, 'drill.json'), JSON.stringify(d));
    const r = await merge([rerun, report(2), report(3), '--report', join(dir, 'org-dup'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Reported by more than one shard (the later report is kept): db_billing.');
    expect((JSON.parse(r.stdout) as DrillDocument).drill.merge?.duplicates).toEqual(['db_billing']);
    expect((JSON.parse(r.stdout) as DrillDocument).drill.isolation).toBe('none');
  });

  it('a report that is not a drill document is exit 2 naming the file and the field; shards of two splits are refused', async () => {
    const bad = join(dir, 'bad');
    cpSync(report(2), bad, { recursive: true });
    const d = doc(bad) as unknown as { drill: Record<string, unknown> };
    delete d.drill.databases;
    writeFileSync(join(bad, 'drill.json'), JSON.stringify(d));
    const r = await merge([bad, report(3), '--report', join(dir, 'x')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(bad, 'drill.json')} is not a drill report (docs/drill.schema.json): drill.databases:`);
    const other = join(dir, 'other-split');
    cpSync(report(2), other, { recursive: true });
    writeFileSync(join(other, 'drill.json'), JSON.stringify({ drill: { ...doc(report(2)).drill, shard: '2/4' } }));
    const s = await merge([other, report(3), '--report', join(dir, 'y')]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('different splits');
  });
});
