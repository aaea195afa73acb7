/**
 * The drill learns where a restore stopped from the engine's result (issue 30): a failure carries
 * its phase and exit code, and the drill's check table turns that into the document's checks, in the
 * contract's order (cli-contract 9, step 4), without querying anything when nothing was restored.
 */
import { describe, expect, it } from 'vitest';
import { CheckRecorder } from '../../src/drill/check-runner.js';
import { blankDrill } from '../../src/drill/document.js';
import { drillChecks } from '../../src/drill/drill-checks.js';
import type { DrillRun } from '../../src/drill/drill-run.js';
import { scratchRestored } from '../../src/drill/scratch-restore.js';
import { InterruptedError } from '../../src/errors.js';
import { ExitCode } from '../../src/exit-codes.js';
import type { Phase } from '../../src/restore/plan.js';
import type { Receipt } from '../../src/restore/receipt.js';
import type { RestoreResult } from '../../src/restore/run.js';
import type { DataSession } from '../../src/drill/data-session.js';

const receipt = (phase: Phase, exitCode: number, message: string) =>
  ({ outcome: 'failed', phasesMs: { preflight: 5, [phase]: 7 }, failure: { phase, exitCode, message } }) as unknown as Receipt;

function failed(phase: Phase, exitCode: number, code: string, message: string): RestoreResult {
  return { dryRun: false, receipt: receipt(phase, exitCode, message), failure: { phase, exitCode, code, message, error: new Error(message) } };
}

/** A run whose checks need no database when nothing was restored: --max-age and one SQL check reported, rows_match on. */
const run = {
  rowsCheck: true,
  strict: false,
  maxAgeSeconds: 86_400,
  checks: [{ name: 'orders_recent', file: '/checks.sql', sql: 'SELECT 1 WHERE false' }],
  drift: { minRows: 1000, maxShrink: 0.5 },
} as unknown as DrillRun;

/** Nothing was restored in these cases: a check that reached for the data would throw. */
const unused = new Proxy(
  {},
  {
    get: () => {
      throw new Error('the data session was used');
    },
  },
) as DataSession;

async function drilled(result: RestoreResult) {
  const doc = { ...blankDrill({ id: 'db_orders', name: 'orders' }, 'passed'), backupAgeSeconds: 3600 };
  const restored = scratchRestored(result, new AbortController().signal);
  Object.assign(doc, { receipt: restored.receipt, phases: restored.receipt?.phasesMs ?? {} });
  await new CheckRecorder(doc).run(drillChecks(run), { run, database: 'svc_drill_x', restored, backupStarted: true, result: doc, data: unused });
  return doc;
}

describe("the drill reads a restore's failed phase from the engine's result", () => {
  it('verify, exit 11 (the archive does not read or fit the server): artifact_verified passed, restore_clean failed, the rest skipped', async () => {
    const message = 'The archive creates an extension that the server does not have: postgis. Nothing was restored.';
    const doc = await drilled(failed('verify', ExitCode.localTool, 'local_tool_failed', message));
    expect(doc.checks).toEqual([
      { name: 'artifact_verified', status: 'passed', durationMs: 0 },
      { name: 'restore_clean', status: 'failed', durationMs: 0, detail: message },
      { name: 'objects_present', status: 'skipped', durationMs: 0, detail: 'restore_clean failed' },
      { name: 'data_present', status: 'skipped', durationMs: 0, detail: 'nothing restored' },
      { name: 'rows_match', status: 'skipped', durationMs: 0, detail: 'nothing restored' },
      { name: 'max_age', status: 'passed', durationMs: 0, detail: 'backup age 0d1h (from its start), at most 1d' },
      { name: 'check:orders_recent', status: 'skipped', durationMs: 0, detail: 'nothing restored' },
    ]);
    expect(doc).toMatchObject({ result: 'failed', exitCode: 11, failure: { check: 'restore_clean', code: 'local_tool_failed', message } });
    expect(doc.receipt?.failure).toEqual({ phase: 'verify', exitCode: 11, message });
  });

  it('verify, exit 10 (not a pg_dump archive): artifact_verified failed, the engine checks after it skipped naming it', async () => {
    const message = 'The artifact is not a pg_dump archive (no PGDMP header): nothing was restored.';
    const doc = await drilled(failed('verify', ExitCode.integrity, 'artifact_integrity', message));
    expect(doc.checks.slice(0, 3)).toEqual([
      { name: 'artifact_verified', status: 'failed', durationMs: 0, detail: message },
      { name: 'restore_clean', status: 'skipped', durationMs: 0, detail: 'artifact_verified failed' },
      { name: 'objects_present', status: 'skipped', durationMs: 0, detail: 'artifact_verified failed' },
    ]);
    expect(doc).toMatchObject({ result: 'failed', exitCode: 10, failure: { check: 'artifact_verified', code: 'artifact_integrity' } });
  });

  it('restore and analyze fail restore_clean; preflight, createRestore and download fail artifact_verified', async () => {
    for (const [phase, check] of [
      ['restore', 'restore_clean'],
      ['analyze', 'restore_clean'],
      ['preflight', 'artifact_verified'],
      ['createRestore', 'artifact_verified'],
      ['download', 'artifact_verified'],
    ] as const) {
      const doc = await drilled(failed(phase, ExitCode.localTool, 'local_tool_failed', `failed in ${phase}`));
      expect(doc.failure, phase).toEqual({ check, code: 'local_tool_failed', message: `failed in ${phase}` });
    }
  });

  it('an interrupted restore is thrown, not recorded: the drill ends after its clean-up', () => {
    const interrupted = new AbortController();
    interrupted.abort('SIGTERM');
    const error = new InterruptedError('Interrupted while restoring.');
    const result: RestoreResult = {
      dryRun: false,
      receipt: null,
      failure: { phase: 'restore', exitCode: 143, code: 'interrupted', message: error.message, error },
    };
    expect(() => scratchRestored(result, interrupted.signal)).toThrow(error);
  });
});
