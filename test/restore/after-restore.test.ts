/**
 * What a restore does after pg_restore (cli-contract 7.7-7.8), against a real PostgreSQL: ANALYZE
 * (so the planner has statistics; --no-analyze skips it), the check that every table, view,
 * sequence and index of the archive exists in the target (exit 11 naming a missing one), and the
 * restore receipt, written for failures too and holding no secret. Autovacuum is off in this
 * cluster, so statistics can only come from svc.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, useRestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/after-restore.test.ts skipped: ${skip}`);

const PHASES = ['preflight', 'createRestore', 'download', 'verify', 'restore', 'analyze', 'check'];

describe.skipIf(!!skip)('after pg_restore: ANALYZE, the object check and the receipt', () => {
  const h = useRestoreHarness({ settings: { autovacuum: 'off' } });

  async function restore(database: string, extra: string[] = [], env: Record<string, string> = {}) {
    await h.dropDatabase(database);
    const workDir = await h.workDir();
    const receiptPath = join(workDir, '..', `${database}.receipt.json`);
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receiptPath, ...extra], {
      env: { SVC_TARGET_DSN: h.dsn(database, true), ...env },
    });
    return { ...r, workDir, receiptPath, receipt: async () => JSON.parse(await readFile(receiptPath, 'utf8')) };
  }

  /** Columns of public tables the planner has statistics for. */
  const statistics = (database: string) => h.cluster.psql("SELECT count(*) FROM pg_stats WHERE schemaname = 'public'", database).then(Number);

  it('ANALYZE runs: the planner has statistics for every restored table, and the receipt has their row estimates', async () => {
    const r = await restore('after_analyzed');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^analyze: +done: the planner has statistics$/m);
    expect(r.stdout).toMatch(/^objects checked: +2 tables, 1 view, 3 sequences, 2 indexes$/m);
    expect(await statistics('after_analyzed')).toBeGreaterThan(0);
    const analysed = await h.cluster.psql(
      "SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL",
      'after_analyzed',
    );
    expect(analysed).toBe('customers,orders');

    const receipt = await r.receipt();
    expect(receipt.tableRowEstimates).toEqual({ 'public.customers': 1000, 'public.orders': 5000 });
    expect(receipt.objects).toEqual({ TABLE: 2, VIEW: 1, 'MATERIALIZED VIEW': 0, SEQUENCE: 3, INDEX: 2 });
  });

  it("ANALYZE and the object check are svc's own sessions: a psql on PATH that refuses every script changes nothing", async () => {
    // The version probe of the preflight passes to the real psql; any other run is noted and fails.
    const shim = join(h.scratch, 'refusing-psql');
    const ran = join(shim, 'ran');
    await mkdir(shim, { recursive: true });
    await writeFile(
      join(shim, 'psql'),
      [
        '#!/bin/sh',
        `case "$1" in --version) exec '${join(h.cluster.binDir, 'psql')}' "$@";; esac`,
        `echo x >> '${ran}'`,
        "echo 'ERROR:  this psql refuses svc' >&2",
        'exit 3',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const r = await restore('after_no_psql', [], { PATH: `${shim}:${h.env().PATH}` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^analyze: +done: the planner has statistics$/m);
    expect(r.stdout).toMatch(/^objects checked: +2 tables, 1 view, 3 sequences, 2 indexes$/m);
    expect(await statistics('after_no_psql')).toBeGreaterThan(0);
    expect(existsSync(ran)).toBe(false);
  });

  it('--no-analyze leaves the planner without statistics, and says so', async () => {
    const r = await restore('after_unanalyzed', ['--no-analyze']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^analyze: +skipped \(--no-analyze\): run ANALYZE before relying on query plans$/m);
    expect(await statistics('after_unanalyzed')).toBe(0);
    const receipt = await r.receipt();
    expect(receipt.phasesMs.analyze).toBeUndefined();
    expect(Object.keys(receipt.phasesMs)).toEqual(PHASES.filter((p) => p !== 'analyze'));
  });

  it('an object of the archive missing from the target after pg_restore: exit 11 naming it, and a failure receipt', async () => {
    // pg_restore restores everything but one index and exits 0, as a filtered list or a silent failure would.
    const r = await restore('after_missing', [], { SVC_TEST_OMIT: 'INDEX public orders_placed_at_idx' });
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('The restore finished, but 1 object(s) of the archive are missing from the target: index public.orders_placed_at_idx.');
    expect(r.stdout).toBe('');
    const receipt = await r.receipt();
    expect(receipt).toMatchObject({ outcome: 'failed', failure: { phase: 'check', exitCode: 11 }, objects: null });
    expect(receipt.failure.message).toContain('index public.orders_placed_at_idx');
    expect(await readdir(r.workDir)).toEqual([]);
  });

  it("the receipt of a restore: every field of the contract, mode 0644, the run's own figures", async () => {
    const r = await restore('after_receipt', ['--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((await stat(r.receiptPath)).mode & 0o777).toBe(0o644);
    const receipt = await r.receipt();
    expect(receipt).toStrictEqual({
      svcVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
      nodeVersion: process.versions.node,
      pgRestoreVersion: expect.stringMatching(/^pg_restore \(PostgreSQL\) 1\d\./),
      targetServerVersion: expect.stringMatching(/^1\d\.\d+/),
      restoreJobId: 'rj_restorepg',
      backupJobId: BACKUP_ID,
      backupSelection: { rule: 'id', backupJobId: BACKUP_ID, startedAt: '2026-11-21T06:00:03Z', completedAt: '2026-11-21T06:01:40Z' },
      backupStartedAt: '2026-11-21T06:00:03Z',
      backupCompletedAt: '2026-11-21T06:01:40Z',
      mode: 'new_database',
      targetRedactedDsn: h.redacted('after_receipt'),
      artifact: { bytes: h.info.sizeBytes, expectedSha256: h.info.sha256, computedSha256: h.info.sha256, verified: true },
      connections: 1,
      phasesMs: Object.fromEntries(PHASES.map((p) => [p, expect.any(Number)])),
      objects: { TABLE: 2, VIEW: 1, 'MATERIALIZED VIEW': 0, SEQUENCE: 3, INDEX: 2 },
      tableRowEstimates: { 'public.customers': 1000, 'public.orders': 5000 },
      // The seed database is the server's default (UTF8, C), with no database settings or tablespaces of its own.
      databaseOptions: { ENCODING: 'UTF8', LOCALE_PROVIDER: 'libc', LOCALE: 'C' },
      databaseSettings: { applied: [], notApplied: [] },
      tablespaces: { named: [], ignored: false },
      // Only a drill counts rows (cli-contract 9.11).
      rowsMatch: null,
      // Only a drill's least-privilege restore leaves objects out or creates roles (cli-contract 7.14, 9.9).
      notRestored: [],
      placeholderRoles: [],
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      endedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      outcome: 'restored',
      failure: null,
    });
    expect(Object.keys(receipt.phasesMs)).toEqual(PHASES);
    // --json carries the same receipt.
    expect(JSON.parse(r.stdout).execution.receipt).toEqual(receipt);
  });

  it('a failed download writes a receipt too: where it stopped, its exit code, and a message without the URL', async () => {
    h.coords.expectedSha256 = 'f'.repeat(64);
    const r = await restore('after_failed');
    expect(r.code).toBe(10);
    const receipt = await r.receipt();
    expect(receipt).toMatchObject({
      outcome: 'failed',
      restoreJobId: 'rj_restorepg',
      artifact: { expectedSha256: 'f'.repeat(64), computedSha256: null, verified: false },
      failure: { phase: 'download', exitCode: 10 },
    });
    expect(receipt.failure.message).toMatch(/SHA-256/);
    expect(receipt.phasesMs.restore).toBeUndefined();
    expect(await h.databaseExists('after_failed')).toBe(false);
  });

  it('a dry run writes no receipt: it restores nothing', async () => {
    const workDir = await h.workDir();
    const receiptPath = join(workDir, '..', 'dry.receipt.json');
    h.api.use(http.get('*/api/v1/profile', () => HttpResponse.json(fixture('profile'))));
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receiptPath, '--dry-run'], {
      env: { SVC_TARGET_DSN: h.dsn('after_dry', true) },
    });
    expect(r.code, r.stderr).toBe(0);
    await expect(stat(receiptPath)).rejects.toThrow(/ENOENT/);
  });
});
