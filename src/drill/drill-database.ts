import type { ApiClient } from '../api/client.js';
import { createRestore } from '../api/operations/restores.js';
import { ERROR_CODES, isCliError, type ErrorCode } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { AGE_FROM_COMPLETION, backupAgeSeconds, describeSelection, type SelectedBackup, type SelectionRule } from '../restore/select/backup-selection.js';
import { chooseBackup, serviceView } from './backup-choice.js';
import { objectCounts } from '../restore/load/inventory.js';
import type { Phase, RestorePlan } from '../restore/plan.js';
import type { Receipt } from '../restore/receipt.js';
import { runRestore, type RestoreDeps, type RestoreOutcome } from '../restore/run.js';
import type { Target } from '../restore/target/target.js';
import { ageAgainstLimit, humanSeconds } from './duration.js';
import { asOwner, type RestoreRoles } from '../restore/load/unprivileged.js';
import { blankDrill, CHECK_ORDER, type DatabaseDrill, type DrillCheck } from './document.js';
import { dataPresent } from './data-present.js';
import { rowsMatch } from './rows-match.js';
import { DataSession } from './data-session.js';
import { sessionConfig } from './pg-session.js';
import { driftAgainst, type Baseline } from './baseline.js';
import type { DriftLimits } from './drift.js';
import { keepScratch } from './keep.js';
import { scratchName, type Scratch } from './scratch.js';
import { runCheck, type SqlCheck } from './sql-checks.js';

type Env = Record<string, string | undefined>;

/** What every database's drill of one run shares. */
export interface DrillRun {
  api: ApiClient;
  scratch: Scratch;
  /** The restore plan for a scratch target (mode new_database, jobs, connections, work dir ...). */
  plan: (target: Target) => RestorePlan;
  /** The restore engine's dependencies; its own stderr lines are silenced, the drill says one line per phase. */
  deps: Omit<RestoreDeps, 'onPhase' | 'onReceipt'>;
  /** The scratch database's environment for the drill's own queries (data check, SQL checks). */
  pgEnv: (target: Target) => Promise<Env>;
  rule: (databaseId: string) => SelectionRule;
  checks: SqlCheck[];
  maxAgeSeconds: number | undefined;
  /** rows_match runs (--no-rows-check turns it off). */
  rowsCheck: boolean;
  /** --baseline, and no_drift's limits (cli-contract 9.17). */
  baseline?: Baseline;
  drift: DriftLimits;
  keep: boolean;
  /** --strict: what an unprivileged restore cannot create fails restore_clean (cli-contract 7.14). */
  strict: boolean;
  now: () => Date;
  progress: (databaseId: string, text: string) => void;
  command: (databaseId: string, label: string, command: string) => void;
  /** Told when a database is kept (--keep): the cluster is kept only where one is. */
  onKept?: (databaseId: string) => void;
}

const timed = async <T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await fn();
  return { value, ms: Math.round(performance.now() - started) };
};

/** The checks the restore engine itself answers, in order: a failed one skips those after it. */
const ENGINE_CHECKS = ['artifact_verified', 'restore_clean', 'objects_present'] as const;

/** Which check a restore that stopped in `phase` failed (cli-contract 9, step 4). */
function checkFor(phase: Phase, exitCode: number): (typeof ENGINE_CHECKS)[number] {
  if (phase === 'check') return 'objects_present';
  if (phase === 'restore' || phase === 'analyze') return 'restore_clean';
  // The archive is fetched and verified up to the check of its header; what does not read or fit the server is the restore's.
  if (phase === 'verify' && exitCode !== ExitCode.integrity) return 'restore_clean';
  return 'artifact_verified';
}

/**
 * One database's drill (cli-contract 9, steps 3 to 6): the backup chosen, the restore engine run into
 * a fresh scratch database, the checks in the contract's order, and the scratch database dropped
 * again (unless --keep). A failure is recorded, never thrown: the other databases go on. Only an
 * interruption (SIGINT, SIGTERM, SIGHUP) is thrown, after this database's clean-up.
 */
export async function drillDatabase(run: DrillRun, db: { id: string; name: string | null }): Promise<DatabaseDrill> {
  const { id } = db;
  const checks: DrillCheck[] = [];
  const record = (name: DrillCheck['name'], status: DrillCheck['status'], durationMs = 0, detail?: string) =>
    checks.push({ name, status, durationMs, ...(detail === undefined ? {} : { detail }) });
  const result: DatabaseDrill = { ...blankDrill({ id, name: db.name }, 'passed'), checks };
  const fail = (check: DrillCheck['name'], code: ErrorCode | string, exitCode: number, message: string) => {
    if (result.result === 'failed') return;
    Object.assign(result, { result: 'failed', exitCode, failure: { check, code, message } });
  };
  const service = serviceView(run.api, id).catch(() => null);

  // backup_selected
  let selected: SelectedBackup;
  const selecting = performance.now();
  try {
    selected = await chooseBackup(run.api, run.rule(id), id);
    record('backup_selected', 'passed', Math.round(performance.now() - selecting), describeSelection(selected, run.now()));
  } catch (err) {
    if (run.deps.signal.aborted || !isCliError(err)) throw err;
    record('backup_selected', 'failed', Math.round(performance.now() - selecting), err.message);
    fail('backup_selected', err.details.code, err.exitCode, err.message);
    const rest = CHECK_ORDER.slice(1).filter((c) => (c !== 'max_age' || run.maxAgeSeconds !== undefined) && (c !== 'no_drift' || run.baseline));
    for (const name of [...rest, ...run.checks.map((c) => `check:${c.name}` as const)]) record(name, 'skipped', 0, 'no backup selected');
    run.progress(id, `failed: ${err.message}`);
    result.service = await service;
    return result;
  }
  const { startedAt, completedAt, backupJobId } = selected.selection;
  Object.assign(result, {
    backupJobId,
    backupStartedAt: startedAt,
    backupCompletedAt: completedAt,
    backupAgeSeconds: backupAgeSeconds(selected.selection, run.now()),
  });
  run.progress(id, describeSelection(selected, run.now()).replace(/\.$/, ''));

  // The restore engine, into a new scratch database.
  const name = scratchName(id);
  const target = run.scratch.target(name);
  let roles: RestoreRoles | undefined;
  let createdAt: number | undefined;
  let receipt: Receipt | undefined;
  let outcome: RestoreOutcome | undefined;
  let restoreError: unknown;
  try {
    // The scratch server's superuser only sets up; this database is restored as an owner role of its own (9.9).
    const created = await run.scratch.roles?.();
    roles = created && { ...created, say: (text: string) => run.progress(id, text) };
    const restored = await runRestore(
      { ...run.plan(target), ...(roles ? { roles } : {}) },
      {
        check: async () => ({ selection: selected.selection, artifactBytes: selected.backup?.artifact?.sizeBytes }),
        create: async (targetRedactedDsn) =>
          (await run.api.send(createRestore({ backupJobId, targetRedactedDsn, mode: 'new_database', confirmDestructive: false }))).data,
      },
      {
        ...run.deps,
        onPhase: (phase) => {
          if (phase === 'createRestore') createdAt = performance.now();
          if (phase !== 'preflight') run.progress(id, phase === 'restore' ? `restore into ${name}` : phase);
        },
        onReceipt: (r) => (receipt = r),
      },
    );
    if (!restored.dryRun) outcome = restored.outcome;
  } catch (err) {
    if (run.deps.signal.aborted) {
      await dropScratch(run, id, name);
      throw err;
    }
    restoreError = err;
  }
  result.receipt = receipt ?? null;
  result.restoreJobId = receipt?.restoreJobId ?? null;
  result.phases = receipt?.phasesMs ?? {};
  result.placeholderRoles = receipt?.placeholderRoles ?? [];
  result.notRestored = receipt?.notRestored ?? [];
  for (const n of result.notRestored) run.progress(id, `not restored: ${n.type.toLowerCase()} ${n.name}: ${n.reason}`);
  const ms = (...phases: Phase[]) => phases.reduce((a, p) => a + (result.phases[p] ?? 0), 0);

  if (outcome) {
    record('artifact_verified', 'passed', ms('createRestore', 'download', 'verify'), `${outcome.artifactBytes} bytes, SHA-256 ${outcome.sha256}`);
    const left = outcome.notRestored.length;
    const leftOut = left
      ? `; ${left} object(s) an unprivileged restore cannot create were left out: ${outcome.notRestored.map((n) => `${n.type.toLowerCase()} ${n.name}`).join(', ')}`
      : '';
    if (left && run.strict) {
      record('restore_clean', 'failed', ms('restore', 'analyze'), `pg_restore exit ${outcome.pgRestoreExitCode}${leftOut} (--strict)`);
      fail(
        'restore_clean',
        'not_restored',
        ERROR_CODES.not_restored.exit,
        `--strict: ${left} object(s) of the archive were not restored: ${outcome.notRestored.map((n) => `${n.type.toLowerCase()} ${n.name} (${n.reason})`).join('; ')}.`,
      );
    } else record('restore_clean', 'passed', ms('restore', 'analyze'), `pg_restore exit ${outcome.pgRestoreExitCode}${leftOut}`);
    record('objects_present', 'passed', ms('check'), receipt?.objects ? objectCounts(receipt.objects) : undefined);
  } else {
    const phase = receipt?.failure?.phase ?? 'preflight';
    const exitCode = isCliError(restoreError) ? restoreError.exitCode : ExitCode.unexpected;
    const failed = checkFor(phase, exitCode);
    const message = receipt?.failure?.message ?? (restoreError instanceof Error ? restoreError.message : String(restoreError));
    const at = ENGINE_CHECKS.indexOf(failed);
    ENGINE_CHECKS.forEach((c, i) =>
      record(c, i < at ? 'passed' : i === at ? 'failed' : 'skipped', 0, i === at ? message : i > at ? `${failed} failed` : undefined),
    );
    fail(failed, isCliError(restoreError) ? restoreError.details.code : 'unexpected', exitCode, message);
  }

  // data_present, max_age and the SQL checks, in the contract's order.
  const restored = outcome !== undefined || checks.find((c) => c.name === 'restore_clean')?.status === 'passed';
  // The data check and the count share one session, as the owner role: nothing of the backup runs as the superuser.
  const as = roles ? asOwner(target, roles.owner) : target;
  const data = new DataSession(sessionConfig(as, run.deps.env, as.user, as.password, name), run.deps.scrubber, run.deps.signal);
  try {
    if (!restored) record('data_present', 'skipped', 0, 'nothing restored');
    else if (outcome && !outcome.tableData) record('data_present', 'skipped', 0, 'the archive holds no table data');
    else {
      const present = await timed(() => dataPresent(data));
      if (typeof present.value === 'object') {
        record('data_present', 'failed', present.ms, `the query failed: ${present.value.failed}`);
        fail('data_present', 'local_tool_failed', ERROR_CODES.local_tool_failed.exit, `The data check could not run: ${present.value.failed}`);
      } else {
        record('data_present', present.value ? 'passed' : 'failed', present.ms, present.value ? undefined : 'no restored table has a row');
        if (!present.value) fail('data_present', 'no_data', ERROR_CODES.no_data.exit, 'The archive holds table data, but no restored table has a row.');
      }
    }
    if (!run.rowsCheck) record('rows_match', 'skipped', 0, 'turned off (--no-rows-check)');
    else if (!outcome) record('rows_match', 'skipped', 0, restored ? 'objects_present failed' : 'nothing restored');
    else if (!outcome.tableData) record('rows_match', 'skipped', 0, 'the archive holds no table data');
    else {
      const archive = outcome.archiveRows ?? { failed: 'the archive was not counted' };
      const rows = await timed(() => rowsMatch(archive, data, outcome.clientEncoding));
      record('rows_match', rows.value.passed ? 'passed' : 'failed', rows.ms, rows.value.detail);
      if (result.receipt) result.receipt.rowsMatch = rows.value.receipt;
      if (rows.value.fingerprint) result.fingerprint = rows.value.fingerprint;
      if (rows.value.message) fail('rows_match', 'rows_mismatch', ERROR_CODES.rows_mismatch.exit, rows.value.message);
      else if (!rows.value.passed)
        fail('rows_match', 'local_tool_failed', ERROR_CODES.local_tool_failed.exit, `The row check could not run: ${rows.value.detail}.`);
    }
    await data.close();
    if (run.baseline) {
      const drift = driftAgainst(run.baseline, id, result.fingerprint, run.drift);
      record('no_drift', drift.status, 0, drift.detail);
      if (drift.message) fail('no_drift', 'data_drift', ERROR_CODES.data_drift.exit, drift.message);
    }
    if (run.maxAgeSeconds !== undefined) {
      const age = result.backupAgeSeconds;
      const ok = age !== null && age <= run.maxAgeSeconds;
      const from = startedAt ? 'from its start' : AGE_FROM_COMPLETION;
      // The limit as typed (26h), the age in its unit, to the precision that tells the two apart.
      const [shown, most] = ageAgainstLimit(age ?? 0, run.maxAgeSeconds);
      const detail = age === null ? 'the backup has no start or completion time' : `backup age ${shown} (${from}), at most ${most}`;
      record('max_age', ok ? 'passed' : 'failed', 0, detail);
      if (!ok) fail('max_age', 'max_age_exceeded', ERROR_CODES.max_age_exceeded.exit, `The newest restorable backup is older than --max-age: ${detail}.`);
    }
    for (const check of run.checks) {
      if (!restored) {
        record(`check:${check.name}`, 'skipped', 0, 'nothing restored');
        continue;
      }
      const ran = await timed(() => runCheck(check, () => run.scratch.checkSession(name), run.deps.scrubber, run.deps.signal));
      record(`check:${check.name}`, ran.value.passed ? 'passed' : 'failed', ran.ms, ran.value.detail);
      if (!ran.value.passed)
        fail(`check:${check.name}`, 'sql_check_failed', ERROR_CODES.sql_check_failed.exit, `SQL check ${check.name} (${check.file}): ${ran.value.detail}.`);
    }
  } catch (err) {
    await data.close();
    // Interrupted (or failed) in a check: the scratch database must not outlive the run, on an operator's server least of all.
    if (run.deps.signal.aborted || !run.keep || !(await keepScratch(run, id, target))) await dropScratch(run, id, name);
    throw err;
  }
  if (createdAt !== undefined && restored) result.recoveryTimeMs = Math.round(performance.now() - createdAt);

  // --keep keeps a failed restore's database too (cli-contract 9.13).
  const kept = run.keep ? await keepScratch(run, id, target) : undefined;
  if (kept) result.kept = kept;
  else await dropScratch(run, id, name);
  result.service = await service;
  const verdict =
    result.result === 'passed'
      ? `passed: recovery time ${((result.recoveryTimeMs ?? 0) / 1000).toFixed(1)}s, backup age ${humanSeconds(result.backupAgeSeconds ?? 0)}`
      : `failed at ${result.failure?.check}: ${result.failure?.message}`;
  run.progress(id, verdict);
  return result;
}

async function dropScratch(run: DrillRun, id: string, name: string): Promise<void> {
  const failed = await run.scratch.drop(name);
  if (failed) run.progress(id, `could not drop the scratch database ${name}: ${failed}`);
}
