/**
 * A SQL check cannot hang a drill (cli-contract 9, step 4): it runs under a statement timeout, the
 * contract's 60 s shortened here to 2 s (SVC_TEST_CHECK_TIMEOUT_MS, src/contract-timers.ts; svc
 * offers users no way to shorten it). drill-sandbox.test.ts checks that a check sees the contract's
 * 60 s and the read-only transaction.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-check-timeout.test.ts skipped: ${skip}`);
const TIMEOUT_MS = 2_000;

describe.skipIf(!!skip)('a SQL check that outlasts the statement timeout', () => {
  const h = new DrillE2e();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('is cancelled at the timeout and fails its database (exit 13); the checks after it still run', async () => {
    const file = join(h.workDir(), 'slow.sql');
    writeFileSync(file, '-- check: sleeps_75s\nSELECT 1 AS woke FROM pg_sleep(75)\n-- check: after\nSELECT 1 WHERE false\n');
    const r = await h.drill(['db_orders', '--check', file, '--json'], { env: { SVC_TEST_CHECK_TIMEOUT_MS: String(TIMEOUT_MS) } });
    expect(r.code).toBe(13);
    const checks = r.doc!.databases[0]!.checks;
    const slow = checks.find((c) => c.name === 'check:sleeps_75s')!;
    expect(slow).toMatchObject({ status: 'failed', detail: expect.stringMatching(/^the query failed: ERROR: +canceling statement due to statement timeout/) });
    expect(slow.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(slow.durationMs).toBeLessThan(75_000);
    expect(checks.at(-1)).toMatchObject({ name: 'check:after', status: 'passed' });
    expect(r.doc!.databases[0]!.failure).toMatchObject({ check: 'check:sleeps_75s', code: 'sql_check_failed' });
  });
});
