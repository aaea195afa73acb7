/**
 * A drill piped into a CI log says it is alive (cli-contract 4): a database whose phase runs longer
 * than the heartbeat interval repeats its last line with the time it has been running, and stops once
 * its verdict is said. The interval is the contract's 60 s shortened to 1 s (SVC_TEST_HEARTBEAT_MS,
 * src/contract-timers.ts); pg_restore (a PATH shim in front of the real one) waits until the test has
 * seen the restore's heartbeat line.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPgBinDir, pgSkipReason } from '../support/pg-cluster.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { onceSeen, shellGate } from '../support/shell-gate.js';

const skip = pgSkipReason();
const HEARTBEAT_MS = 1_000;
const RESTORE_BEAT = /^db_orders: restore into svc_drill_db_orders_[0-9a-f]{8} \(still running, (\d+\.\d)s\)$/;

describe.skipIf(!!skip)('the drill heartbeat', () => {
  const h = new DrillE2e();
  beforeAll(() => h.start(), 180_000);
  afterAll(() => h.stop());

  it('piped: "db_orders: restore into svc_drill_... (still running, 1.0s)" no more often than the interval, then the verdict', async () => {
    const shims = mkdtempSync(join(tmpdir(), 'svc-drill-shim-'));
    chmodSync(shims, 0o755);
    const gate = shellGate(shims);
    const real = join(findPgBinDir()!, 'pg_restore');
    writeFileSync(
      join(shims, 'pg_restore'),
      `#!/bin/sh\ncase "$1" in --version|-l|--create|--data-only) exec ${real} "$@";; esac\n${gate.wait}\nexec ${real} "$@"\n`,
    );
    chmodSync(join(shims, 'pg_restore'), 0o755);
    const r = await h
      .drill(['db_orders'], {
        env: { PATH: `${shims}${delimiter}${process.env.PATH}`, SVC_TEST_HEARTBEAT_MS: String(HEARTBEAT_MS) },
        onStderr: onceSeen(/^db_orders: restore into \S+ \(still running/m, gate.open),
      })
      .finally(() => rmSync(shims, { recursive: true, force: true }));
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n');
    const beats = lines.filter((l) => RESTORE_BEAT.test(l));
    expect(beats.length, r.stderr).toBeGreaterThanOrEqual(1);
    // Each beat says how long the phase has run since its last line: a full interval at the first, and an interval more at each next.
    const secs = beats.map((l) => Number(RESTORE_BEAT.exec(l)![1]));
    expect(secs[0]).toBeGreaterThanOrEqual((HEARTBEAT_MS - 50) / 1000 - 0.05);
    for (let i = 1; i < secs.length; i++) expect(secs[i]! - secs[i - 1]!, r.stderr).toBeGreaterThanOrEqual((HEARTBEAT_MS - 50) / 1000 - 0.1);
    // Nothing beats after the verdict.
    const verdict = lines.findIndex((l) => l.startsWith('db_orders: passed'));
    expect(verdict, r.stderr).toBeGreaterThan(0);
    expect(
      lines.slice(verdict).filter((l) => l.includes('still running')),
      r.stderr,
    ).toEqual([]);
  });
});
