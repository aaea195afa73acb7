import { ERROR_CODES } from '../errors.js';
import { objectCounts } from '../restore/load/inventory.js';
import type { Phase } from '../restore/plan.js';
import { AGE_FROM_COMPLETION } from '../restore/select/backup-selection.js';
import { driftAgainst } from './baseline.js';
import { dataPresent } from './data-present.js';
import type { DataSession } from './data-session.js';
import type { DatabaseDrill, DrillCheck } from './document.js';
import type { DrillRun } from './drill-run.js';
import { ageAgainstLimit } from './duration.js';
import { rowsMatch } from './rows-match.js';
import { ENGINE_CHECKS, type EngineCheck, type ScratchRestored } from './scratch-restore.js';
import { runCheck, type SqlCheck } from './sql-checks.js';

type Env = Record<string, string | undefined>;

/** What a database's checks read: the restore's result, the scratch database, the document being written. */
export interface CheckState {
  run: DrillRun;
  /** The scratch database's name. */
  database: string;
  restored: ScratchRestored;
  /** The backup has a start time (the age is from it), else only a completion time. */
  backupStarted: boolean;
  /** The session the data check and the count read through: the owner role's, where the restore ran as one; opened by its first query. */
  data: DataSession;
  /** The database's entry of the document: rows_match adds its fingerprint and receipt, no_drift reads them. */
  result: DatabaseDrill;
}

export interface Verdict {
  status: DrillCheck['status'];
  durationMs?: number;
  detail?: string;
  /** The database's failure, where this is its first failed check. */
  failure?: { code: string; exitCode: number; message: string };
}

/** What must hold for a check to run; `skip` says why it was skipped where it does not. */
interface Need {
  met: (s: CheckState, check: DrillCheck['name']) => boolean;
  skip: (s: CheckState) => string;
}

/** A check of the drill (cli-contract 9, step 4): a new check is one more entry of `drillChecks`. */
export interface CheckDefinition {
  name: DrillCheck['name'];
  /** Whether this run reports the check at all (no_drift with --baseline, max_age with --max-age); default: always. */
  included?: (run: Omit<DrillRun, 'scratch'>) => boolean;
  /** Checked in order: the first one not met skips the check, saying why. */
  needs: Need[];
  run: (s: CheckState) => Verdict | Promise<Verdict>;
}

/** Something was restored: pg_restore finished (the object check may still have failed). */
export const wasRestored = (r: ScratchRestored) => r.outcome !== undefined || r.failure?.check === 'objects_present';

const NEEDS = {
  /** The restore got this far: an engine check after the one the restore failed is skipped. */
  reached: {
    met: (s, check) => !s.restored.failure || ENGINE_CHECKS.indexOf(check as EngineCheck) <= ENGINE_CHECKS.indexOf(s.restored.failure.check),
    skip: (s) => `${s.restored.failure!.check} failed`,
  },
  restored: { met: (s) => wasRestored(s.restored), skip: () => 'nothing restored' },
  objectsPresent: { met: (s) => s.restored.outcome !== undefined, skip: () => 'objects_present failed' },
  tableData: { met: (s) => s.restored.outcome?.tableData !== false, skip: () => 'the archive holds no table data' },
  rowsCheck: { met: (s) => s.run.rowsCheck, skip: () => 'turned off (--no-rows-check)' },
} satisfies Record<string, Need>;

const timed = async <T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await fn();
  return { value, ms: Math.round(performance.now() - started) };
};

const failure = (code: keyof typeof ERROR_CODES, message: string) => ({ code, exitCode: ERROR_CODES[code].exit, message });

/** The milliseconds of the restore's phases, from its receipt. */
const ms = (s: CheckState, ...phases: Phase[]) => phases.reduce((a, p) => a + (s.result.phases[p] ?? 0), 0);

/** An engine check: passed where the restore went past it, failed where it stopped there (`passed` says how it passed on success). */
function engineCheck(name: EngineCheck, passed: (s: CheckState) => Verdict): CheckDefinition {
  return {
    name,
    needs: [NEEDS.reached],
    run: (s) => {
      const stopped = s.restored.failure;
      if (!stopped) return passed(s);
      if (stopped.check !== name) return { status: 'passed' };
      return { status: 'failed', detail: stopped.message, failure: stopped };
    },
  };
}

const notRestored = (s: CheckState) => s.restored.outcome!.notRestored.map((n) => `${n.type.toLowerCase()} ${n.name}`);

/** The built-in checks, in the contract's order (document.ts CHECK_ORDER), after backup_selected. */
const BUILT_IN: CheckDefinition[] = [
  engineCheck('artifact_verified', (s) => ({
    status: 'passed',
    durationMs: ms(s, 'createRestore', 'download', 'verify'),
    detail: `${s.restored.outcome!.artifactBytes} bytes, SHA-256 ${s.restored.outcome!.sha256}`,
  })),
  engineCheck('restore_clean', (s) => {
    const { outcome } = s.restored;
    const left = outcome!.notRestored;
    const leftOut = left.length ? `; ${left.length} object(s) an unprivileged restore cannot create were left out: ${notRestored(s).join(', ')}` : '';
    const durationMs = ms(s, 'restore', 'analyze');
    if (!left.length || !s.run.strict) return { status: 'passed', durationMs, detail: `pg_restore exit ${outcome!.pgRestoreExitCode}${leftOut}` };
    const named = left.map((n) => `${n.type.toLowerCase()} ${n.name} (${n.reason})`).join('; ');
    return {
      status: 'failed',
      durationMs,
      detail: `pg_restore exit ${outcome!.pgRestoreExitCode}${leftOut} (--strict)`,
      failure: failure('not_restored', `--strict: ${left.length} object(s) of the archive were not restored: ${named}.`),
    };
  }),
  engineCheck('objects_present', (s) => ({
    status: 'passed',
    durationMs: ms(s, 'check'),
    detail: s.result.receipt?.objects ? objectCounts(s.result.receipt.objects) : undefined,
  })),
  {
    name: 'data_present',
    needs: [NEEDS.restored, NEEDS.tableData],
    run: async (s) => {
      const { run } = s;
      const present = await timed(() => dataPresent(s.data));
      if (typeof present.value === 'object') {
        const why = present.value.failed;
        return {
          status: 'failed',
          durationMs: present.ms,
          detail: `the query failed: ${why}`,
          failure: failure('local_tool_failed', `The data check could not run: ${why}`),
        };
      }
      if (present.value) return { status: 'passed', durationMs: present.ms };
      const message = 'The archive holds table data, but no restored table has a row.';
      return { status: 'failed', durationMs: present.ms, detail: 'no restored table has a row', failure: failure('no_data', message) };
    },
  },
  {
    name: 'rows_match',
    needs: [NEEDS.rowsCheck, NEEDS.restored, NEEDS.objectsPresent, NEEDS.tableData],
    run: async (s) => {
      const { run, result } = s;
      const outcome = s.restored.outcome!;
      const archive = outcome.archiveRows ?? { failed: 'the archive was not counted' };
      const rows = await timed(() => rowsMatch(archive, s.data, outcome.clientEncoding));
      if (result.receipt) result.receipt.rowsMatch = rows.value.receipt;
      if (rows.value.fingerprint) result.fingerprint = rows.value.fingerprint;
      const verdict: Verdict = { status: rows.value.passed ? 'passed' : 'failed', durationMs: rows.ms, detail: rows.value.detail };
      if (rows.value.message) return { ...verdict, failure: failure('rows_mismatch', rows.value.message) };
      if (!rows.value.passed) return { ...verdict, failure: failure('local_tool_failed', `The row check could not run: ${rows.value.detail}.`) };
      return verdict;
    },
  },
  {
    name: 'no_drift',
    included: (run) => run.baseline !== undefined,
    needs: [],
    run: (s) => {
      const drift = driftAgainst(s.run.baseline!, s.result.databaseId, s.result.fingerprint, s.run.drift);
      return { status: drift.status, detail: drift.detail, ...(drift.message ? { failure: failure('data_drift', drift.message) } : {}) };
    },
  },
  {
    name: 'max_age',
    included: (run) => run.maxAgeSeconds !== undefined,
    needs: [],
    run: (s) => {
      const age = s.result.backupAgeSeconds;
      const limit = s.run.maxAgeSeconds!;
      const ok = age !== null && age <= limit;
      const from = s.backupStarted ? 'from its start' : AGE_FROM_COMPLETION;
      // The limit as typed (26h), the age in its unit, to the precision that tells the two apart.
      const [shown, most] = ageAgainstLimit(age ?? 0, limit);
      const detail = age === null ? 'the backup has no start or completion time' : `backup age ${shown} (${from}), at most ${most}`;
      if (ok) return { status: 'passed', detail };
      return { status: 'failed', detail, failure: failure('max_age_exceeded', `The newest restorable backup is older than --max-age: ${detail}.`) };
    },
  },
];

/** A --check file's query: it runs in a read-only transaction as the run's check role, and fails when it returns a row. */
function sqlCheck(check: SqlCheck): CheckDefinition {
  return {
    name: `check:${check.name}`,
    needs: [NEEDS.restored],
    run: async (s) => {
      const { run } = s;
      const ran = await timed(() => runCheck(check, () => run.scratch.checkSession(s.database), run.deps.scrubber, run.deps.signal));
      if (ran.value.passed) return { status: 'passed', durationMs: ran.ms, detail: ran.value.detail };
      const message = `SQL check ${check.name} (${check.file}): ${ran.value.detail}.`;
      return { status: 'failed', durationMs: ran.ms, detail: ran.value.detail, failure: failure('sql_check_failed', message) };
    },
  };
}

/** This run's checks after backup_selected, in the order the document lists them: the built-in ones it reports, then the SQL checks. */
export function drillChecks(run: Omit<DrillRun, 'scratch'>): CheckDefinition[] {
  return [...BUILT_IN.filter((c) => c.included?.(run) ?? true), ...run.checks.map(sqlCheck)];
}
