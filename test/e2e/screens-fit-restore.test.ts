/**
 * No line wider than the terminal (cli-contract 4, v3) in the screens of a restore and a drill, as a
 * user sees them: the built CLI under a real pseudo-terminal 40, 60, 80 and 120 columns wide,
 * against the sandbox and one throwaway PostgreSQL cluster shared by the file. The download's
 * progress bar is drawn by `restore run` from a loopback artifact server that sends the archive
 * slowly, so that its frames, rate and ETA are on the screen. The other screens are in
 * test/output/screens-fit.test.ts. Skips without a PostgreSQL server or python3, except under CI.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startArtifactServer, type ArtifactServer } from '../support/artifact-server.js';
import { ensureBuilt, tempDir } from '../support/built-cli.js';
import { expectFits, restoreScreenEnv, WIDTHS } from '../support/fit-screens.js';
import { pgSkipReason, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { disposePtys, ptySkipReason } from '../support/pty.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const skip = pgSkipReason() ?? ptySkipReason();
if (skip) console.warn(`test/e2e/screens-fit-restore.test.ts skipped: ${skip}`);

const ARTIFACT = fileURLToPath(new URL('../../fixtures/artifacts/acme-orders.pgdump', import.meta.url));
const SHA = '431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55';

describe.skipIf(!!skip)('restore and drill screens fit the terminal', () => {
  let sandbox: TestSandbox;
  let cluster: PgCluster;
  let slow: ArtifactServer;
  /** Per width, a createRestore 202 body whose artifact comes from the slow server, for `restore run` on stdin. */
  const runBodies = new Map<number, string>();

  beforeAll(async () => {
    const [built, sb, pg, artifacts] = await Promise.allSettled([
      ensureBuilt(),
      startTestSandbox({ now: () => new Date(), recentTimestamps: true }),
      workerCluster(),
      startArtifactServer(ARTIFACT),
    ]);
    if (sb.status === 'fulfilled') sandbox = sb.value;
    if (pg.status === 'fulfilled') cluster = pg.value;
    if (artifacts.status === 'fulfilled') slow = artifacts.value;
    for (const r of [built, sb, pg, artifacts]) if (r.status === 'rejected') throw r.reason;
    // 95 KiB in 8 KiB pieces 200 ms apart: over two seconds of bar, past the first second's rate and ETA.
    slow.setMode({ slow: { bytesPerChunk: 8192, delayMs: 200 } });
    // What an in-place restore would replace: never touched, since the prompt is answered with Ctrl-C.
    await cluster.psql('CREATE DATABASE fit_in_place');
    for (const width of WIDTHS) {
      const res = await request(`${sandbox.baseUrl}/api/v1/restores`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.token('full')}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ backupJobId: 'bj_0007', targetRedactedDsn: cluster.dsn(`fit_run_${width}`), mode: 'new_database', confirmDestructive: false }),
      });
      const body = (await res.body.json()) as { execution: { presignedS3Url: string } };
      expect(res.statusCode).toBe(202);
      body.execution.presignedS3Url = slow.url;
      const file = join(tempDir('restore-body'), 'restore.json');
      writeFileSync(file, JSON.stringify(body));
      runBodies.set(width, file);
    }
  }, 180_000);

  afterAll(async () => {
    await disposePtys();
    await Promise.all([cluster?.stop(), sandbox?.stop(), slow?.stop()]);
  });

  const env = (database: string) => restoreScreenEnv(sandbox, cluster, database);

  describe.concurrent('restore', () => {
    it('svc restore create: the verified line, the result and the service view', async () => {
      const runs = await expectFits('restore create', (w) => ({
        args: ['restore', 'create', '--backup', 'bj_0007'],
        env: env(`fit_create_${w}`),
        shows: new RegExp(`sha-256:\\s+${SHA}`),
      }));
      // The digest is on the final screen whole at every width, and on the ✓ line only where it fits.
      for (const run of runs) expect(run.lines.filter((l) => l.includes(SHA)).length, `${run.width}`).toBeGreaterThan(0);
      expect(runs.find((r) => r.width === 120)!.lines.some((l) => /^✓ Verified .*SHA-256 [0-9a-f]{64}/.test(l))).toBe(true);
      expect(runs.find((r) => r.width === 40)!.lines.some((l) => /^✓ Verified 92\.9 KiB \(95129 bytes\)/.test(l))).toBe(true);
    }, 180_000);

    it('svc restore create --database --latest: the backup chosen, then the restore', async () => {
      await expectFits('restore create --latest', (w) => ({
        args: ['restore', 'create', '--database', 'db_orders', '--latest'],
        env: env(`fit_latest_${w}`),
        shows: /bj_0007/,
      }));
    }, 180_000);

    it('svc restore create --dry-run: the plan', async () => {
      await expectFits('restore create --dry-run', () => ({
        args: ['restore', 'create', '--backup', 'bj_0007', '--dry-run'],
        env: env('fit_dry'),
        shows: /bj_0007/,
      }));
    }, 120_000);

    it('svc restore create into a database that is not empty: the error', async () => {
      await expectFits('restore create (not empty)', () => ({
        args: ['restore', 'create', '--backup', 'bj_0007'],
        env: env('postgres'),
        exit: 'any',
        shows: /error:/,
      }));
    }, 120_000);

    it('svc restore create --in-place: the confirmation prompt, then Ctrl-C; the target whole on a line where it fits', async () => {
      const runs = await expectFits('restore create --in-place (prompt)', () => ({
        args: ['restore', 'create', '--backup', 'bj_0007', '--in-place'],
        env: env('fit_in_place'),
        exit: 130,
        shows: /not confirmed/,
        answer: { when: /confirm/, keys: '\x03' },
      }));
      // clack breaks the prompt's lines at spaces; only a word wider than the whole terminal (this DSN at 40) is split.
      for (const run of runs.filter((r) => r.width >= 60))
        expect(
          run.lines.some((l) => l.includes(cluster.dsn('fit_in_place'))),
          run.lines.join('\n'),
        ).toBe(true);
    }, 120_000);

    it('svc restore run: the progress bar fits, rate and ETA where there is room', async () => {
      const runs = await expectFits('restore run', (w) => ({
        args: [],
        shell: `SVC restore run < '${runBodies.get(w)}'`,
        env: env(`fit_run_${w}`),
        shows: /Verified 92\.9 KiB/,
      }));
      for (const run of runs) expect(run.result.raw, `${run.width}`).toMatch(/Downloading artifact \[[#-]+\] \d+%/);
      expect(runs.find((r) => r.width === 120)!.result.raw).toMatch(/\] \d+% [\d.]+ KiB\/92\.9 KiB [\d.]+ KiB\/s ETA \d+s/);
    }, 180_000);

    it('svc restore get --watch: the spinner, then the timeout', async () => {
      await expectFits('restore get --watch', () => ({
        args: ['restore', 'get', 'rj_0001', '--watch', '--wait-timeout', '1'],
        env: env('postgres'),
        exit: 'any',
        shows: /rj_0001/,
      }));
    }, 120_000);
  });

  describe.concurrent('drill', () => {
    const scratch = () => `postgresql://postgres@127.0.0.1:${cluster.port}/postgres`;

    it('svc restore drill: each database restored and checked, the table', async () => {
      await expectFits('restore drill', () => ({ args: ['restore', 'drill', 'db_orders', '--scratch', scratch()], env: env('postgres'), shows: /db_orders/ }));
    }, 240_000);

    it('svc restore drill --all --dry-run: the plan', async () => {
      await expectFits('restore drill --all --dry-run', () => ({
        args: ['restore', 'drill', '--all', '--dry-run', '--scratch', scratch()],
        env: env('postgres'),
        exit: 'any',
        shows: /db_orders/,
      }));
    }, 120_000);
  });
});
