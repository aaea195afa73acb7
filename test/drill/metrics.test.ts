import { describe, expect, it } from 'vitest';
import type { DatabaseDrill, DrillDocument } from '../../src/drill/document.js';
import { drillMetrics, lastSuccesses, LAST_SUCCESS } from '../../src/drill/metrics.js';

const db = (over: Partial<DatabaseDrill>): DatabaseDrill => ({
  databaseId: 'db_a',
  name: 'a',
  result: 'passed',
  exitCode: 0,
  backupJobId: 'bj_1',
  backupStartedAt: null,
  backupCompletedAt: null,
  backupAgeSeconds: 3600,
  restoreJobId: 'rj_1',
  recoveryTimeMs: 1500,
  phases: { restore: 1200 },
  checks: [],
  receipt: null,
  service: null,
  ...over,
});
const doc = (databases: DatabaseDrill[]): DrillDocument => ({
  drill: {
    startedAt: '2026-11-26T00:00:00Z',
    finishedAt: '2026-11-26T00:10:00Z',
    shard: null,
    scratch: 'auto',
    serverVersion: '15',
    isolation: 'namespace',
    databases,
    passed: databases.filter((d) => d.result === 'passed').length,
    failed: databases.filter((d) => d.result === 'failed').length,
  },
});

describe('drill metrics in the exposition format', () => {
  it('escapes a name from the service, so it cannot add a series or break a line', () => {
    const text = drillMetrics(doc([db({ name: 'x"} 1\nsvc_restore_drill_success{database_id="forged' })]));
    expect(text).toContain('svc_restore_drill_success{database_id="db_a",database="x\\"} 1\\nsvc_restore_drill_success{database_id=\\"forged"} 1');
    expect(text.split('\n').filter((l) => l.includes('forged'))).toHaveLength(
      text.split('\n').filter((l) => l.startsWith('svc_restore_drill_') && l.includes('db_a')).length,
    );
    expect(lastSuccesses(text).get('db_a')?.labels.database).toBe('x"} 1\nsvc_restore_drill_success{database_id="forged');
  });

  it('writes a last success only for a pass, and carries an earlier one over for a failure', () => {
    const at = Date.parse('2026-11-26T00:10:00Z') / 1000;
    const passed = drillMetrics(doc([db({})]));
    expect(lastSuccesses(passed).get('db_a')?.value).toBe(at);
    const failed = db({ result: 'failed', exitCode: 13 });
    expect(drillMetrics(doc([failed]))).not.toContain(LAST_SUCCESS);
    const carried = drillMetrics(doc([failed]), lastSuccesses(passed.replaceAll(String(at), '1700000000')));
    expect(lastSuccesses(carried).get('db_a')?.value).toBe(1700000000);
    expect(carried).toContain('svc_restore_drill_success{database_id="db_a",database="a"} 0');
  });
});
