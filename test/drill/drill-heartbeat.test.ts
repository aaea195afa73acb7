/**
 * A drill piped into a CI log says it is alive (cli-contract 4): a database whose phase runs longer
 * than a minute repeats its last line with the time it has been running, and stops once its verdict
 * is said. Here pg_restore starts only after 65 s (a PATH shim in front of the real one).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPgBinDir, pgSkipReason } from '../support/pg-cluster.js';
import { DrillE2e } from '../support/drill-e2e.js';

const skip = pgSkipReason();

describe.skipIf(!!skip)('the drill heartbeat', () => {
  const h = new DrillE2e();
  beforeAll(() => h.start(), 180_000);
  afterAll(() => h.stop());

  it('piped: "db_orders: restore into svc_drill_... (still running, 1m)" once, then the verdict', async () => {
    const shims = mkdtempSync(join(tmpdir(), 'svc-drill-shim-'));
    const real = join(findPgBinDir()!, 'pg_restore');
    writeFileSync(
      join(shims, 'pg_restore'),
      `#!/bin/sh\ncase "$1" in --version|-l|--create|--data-only) exec ${real} "$@";; esac\nsleep 65\nexec ${real} "$@"\n`,
    );
    chmodSync(join(shims, 'pg_restore'), 0o755);
    const started = Date.now();
    const r = await h
      .drill(['db_orders'], { env: { PATH: `${shims}${delimiter}${process.env.PATH}` }, timeoutMs: 150_000 })
      .finally(() => rmSync(shims, { recursive: true, force: true }));
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThan(60_000);
    const beats = r.stderr.split('\n').filter((l) => l.includes('still running'));
    expect(beats).toHaveLength(1);
    expect(beats[0], r.stderr).toMatch(/^db_orders: restore into svc_drill_db_orders_[0-9a-f]{8} \(still running, (60\.\ds|1m0\ds)\)$/);
    // Nothing beats after the verdict.
    const lines = r.stderr.split('\n');
    expect(lines.findIndex((l) => l.startsWith('db_orders: passed'))).toBeGreaterThan(lines.indexOf(beats[0]!));
  }, 180_000);
});
