/**
 * A SQL check cannot hang a drill (cli-contract 9, step 4): it runs under a 60 s statement timeout.
 * svc offers no way to shorten it, so this case waits the real 60 s; it has a file of its own so
 * that the wait overlaps other test files. (drill-sandbox.test.ts checks, at once, that a check sees
 * the timeout and the read-only transaction.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-check-timeout.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('a SQL check that outlasts the statement timeout', () => {
  const h = new DrillE2e();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('is cancelled at 60 s and fails its database (exit 13); the checks after it still run', async () => {
    const file = join(h.workDir(), 'slow.sql');
    writeFileSync(file, '-- check: sleeps_75s\nSELECT 1 AS woke FROM pg_sleep(75)\n-- check: after\nSELECT 1 WHERE false\n');
    const r = await h.drill(['db_orders', '--check', file, '--json'], { timeoutMs: 150_000 });
    expect(r.code).toBe(13);
    const checks = r.doc!.databases[0]!.checks;
    const slow = checks.find((c) => c.name === 'check:sleeps_75s')!;
    expect(slow).toMatchObject({ status: 'failed', detail: expect.stringMatching(/^the query failed: ERROR: +canceling statement due to statement timeout/) });
    expect(slow.durationMs).toBeGreaterThanOrEqual(59_000);
    expect(slow.durationMs).toBeLessThan(75_000);
    expect(checks.at(-1)).toMatchObject({ name: 'check:after', status: 'passed' });
    expect(r.doc!.databases[0]!.failure).toMatchObject({ check: 'check:sleeps_75s', code: 'sql_check_failed' });
  }, 180_000);
});
