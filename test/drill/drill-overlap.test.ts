/**
 * A drill does not wait for its scratch cluster to ask the service which backup to drill (issue 33
 * item 2): the cluster's data directory is copied (or made by initdb) by child processes while the
 * backup is chosen. `cp` (a PATH shim in front of the real one, which the cluster's copy runs) waits
 * until the test has seen the backup's choice on stderr: a drill that chose only once its cluster
 * was up would wait for ever.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg-cluster.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { onceSeen, shellGate } from '../support/shell-gate.js';

const skip = pgSkipReason();

describe.skipIf(!!skip)('the backup is chosen while the scratch cluster starts', () => {
  const h = new DrillE2e();
  beforeAll(() => h.start(), 180_000);
  afterAll(() => h.stop());

  it('the cluster is still being copied when "db_orders: Using bj_0007 ..." is said; then the drill passes', async () => {
    const shims = mkdtempSync(join(tmpdir(), 'svc-drill-shim-'));
    chmodSync(shims, 0o755);
    const gate = shellGate(shims);
    const real = (await execa('sh', ['-c', 'command -v cp'])).stdout.trim();
    writeFileSync(join(shims, 'cp'), `#!/bin/sh\n${gate.wait}\nexec ${real} "$@"\n`);
    chmodSync(join(shims, 'cp'), 0o755);
    const r = await h
      .drill(['db_orders', '--json'], {
        env: { PATH: `${shims}${delimiter}${process.env.PATH}` },
        onStderr: onceSeen(/^db_orders: Using bj_0007\b/m, gate.open),
        timeoutMs: 90_000,
      })
      .finally(() => rmSync(shims, { recursive: true, force: true }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc?.databases.map((d) => [d.databaseId, d.result, d.backupJobId])).toEqual([['db_orders', 'passed', 'bj_0007']]);
    const lines = r.stderr.split('\n');
    expect(lines.findIndex((l) => l.startsWith('db_orders: Using bj_0007'))).toBeLessThan(lines.indexOf('db_orders: createRestore'));
  });
});
