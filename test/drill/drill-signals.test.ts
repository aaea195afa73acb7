/**
 * A drill interrupted (cli-contract 9, step 5): on SIGINT, SIGTERM or SIGHUP the scratch database is
 * dropped and the scratch cluster stopped and removed, and svc exits 130, 143 or 129; no postgres
 * process of the drill outlives it. Each run is caught while a SQL check sleeps in the scratch
 * database (seen in pg_stat_activity), then signalled; the built CLI against the sandbox.
 * Skips without a PostgreSQL server, except under CI.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSecrets, registerSecret, spawnSvc } from '../e2e/helpers.js';
import { DrillE2e, expectNothingLeft, scratchCounts } from '../support/drill-e2e.js';
import { pgSkipReason, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { waitFor } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-signals.test.ts skipped: ${skip}`);

const SLEEPING = "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()";

describe.skipIf(!!skip)('svc restore drill interrupted during a SQL check', { timeout: 120_000 }, () => {
  const h = new DrillE2e();
  let operator: PgCluster;
  const password = randomBytes(9).toString('hex');
  let slow = '';

  beforeAll(async () => {
    registerSecret(password, 'dsnPasswords');
    const [started, pg] = await Promise.allSettled([h.start(), workerCluster({ password })]);
    if (pg.status === 'fulfilled') operator = pg.value;
    for (const r of [started, pg]) if (r.status === 'rejected') throw r.reason;
    slow = join(h.workDir(), 'slow.sql');
    writeFileSync(slow, '-- check: sleeps\nSELECT 1 FROM pg_sleep(30)\n');
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled([operator?.stop(), h.stop()]);
  });

  /** Whether the check sleeps in the scratch cluster in `workDir`. */
  const autoCheckRunning = (workDir: string) => scratchCounts(workDir, SLEEPING);

  const drillDatabases = async () => Number(await operator.psql("SELECT count(*) FROM pg_database WHERE datname LIKE 'svc\\_drill\\_%'"));

  async function interrupted(signal: NodeJS.Signals, scratch: string[], running: (workDir: string) => Promise<boolean>, env: Record<string, string> = {}) {
    const workDir = h.workDir();
    const child = spawnSvc(['restore', 'drill', 'db_orders', '--check', slow, '--work-dir', workDir, ...scratch], {
      env: h.sb.env('drill', env),
      timeoutMs: 90_000,
    });
    // A drill that ends before its check runs fails here with what it said, not as a wait run out.
    let ended = false;
    void child.finally(() => (ended = true)).catch(() => {});
    await waitFor(
      'the SQL check to run',
      async () => {
        if (ended) throw new Error(`The drill ended before its SQL check ran:\n${String((await child).stderr)}`);
        return running(workDir);
      },
      40_000,
    );
    const sent = Date.now();
    child.kill(signal);
    const r = await child;
    const out = { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr), ms: Date.now() - sent };
    expectNoSecrets(`${out.stdout}${out.stderr}`);
    expect(out.ms, out.stderr).toBeLessThan(20_000);
    expectNothingLeft(workDir, out);
    return out;
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('--scratch auto, %s: exit %i, the cluster stopped and its directory removed', async (signal, code) => {
    const r = await interrupted(signal, [], autoCheckRunning);
    expect(r.code, r.stderr).toBe(code);
    expect(r.stdout).toBe('');
  });

  it("--scratch <dsn>, SIGINT: exit 130, the svc_drill_* database dropped from the operator's server, which still runs", async () => {
    const dsn = `postgresql://postgres@127.0.0.1:${operator.port}/postgres`;
    const r = await interrupted('SIGINT', ['--scratch', dsn], async () => (await operator.psql(SLEEPING)) !== '0', { PGPASSWORD: password });
    expect(r.code, r.stderr).toBe(130);
    expect(await drillDatabases(), r.stderr).toBe(0);
    expect(await operator.psql('SELECT 1')).toBe('1');
  });
});
