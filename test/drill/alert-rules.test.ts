/**
 * The alerting rules the docs ship (docs/monitoring/svc-restore-drill.rules.yml) are valid and fire
 * when they should: `promtool check rules`, then `promtool test rules` over the cases of
 * test/drill/alert-rules.promtool.yml (a stale database, a failing drill, an old recovery point, rows that shrank between two runs).
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BINARIES, prometheusSkipReason } from '../support/prometheus.js';

const skip = prometheusSkipReason();
if (skip) console.warn(`test/drill/alert-rules.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('the shipped Prometheus alerting rules', () => {
  it('pass promtool check rules and promtool test rules', async () => {
    const check = await execa(BINARIES.promtool, ['check', 'rules', 'docs/monitoring/svc-restore-drill.rules.yml'], { reject: false });
    expect(check.exitCode, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain('SUCCESS: 4 rules found');
    const test = await execa(BINARIES.promtool, ['test', 'rules', 'test/drill/alert-rules.promtool.yml'], { reject: false });
    expect(test.exitCode, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toContain('SUCCESS');
  });
});
