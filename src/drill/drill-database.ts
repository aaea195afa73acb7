import { isCliError } from '../errors.js';
import { asOwner } from '../restore/load/unprivileged.js';
import { backupAgeSeconds, describeSelection, type SelectedBackup } from '../restore/select/backup-selection.js';
import { chooseBackup, serviceView } from './backup-choice.js';
import { CheckRecorder } from './check-runner.js';
import { DataSession } from './data-session.js';
import { blankDrill, type DatabaseDrill } from './document.js';
import { drillChecks, wasRestored, type CheckState } from './drill-checks.js';
import type { DrillRun, StartingRun } from './drill-run.js';
import { humanSeconds } from './duration.js';
import { keepScratch } from './keep.js';
import { targetConfig } from '../pg/target-session.js';
import { scratchName } from './scratch.js';
import { restoreIntoScratch } from './scratch-restore.js';

export type { DrillRun, StartingRun } from './drill-run.js';

/**
 * One database's drill (cli-contract 9, steps 3 to 6): the backup chosen, the restore engine run into
 * a fresh scratch database, the checks in the contract's order, and the scratch database dropped
 * again (unless --keep). A failure is recorded, never thrown: the other databases go on. Only an
 * interruption (SIGINT, SIGTERM, SIGHUP) is thrown, after this database's clean-up.
 */
export async function drillDatabase(starting: StartingRun, db: { id: string; name: string | null }): Promise<DatabaseDrill> {
  const { id } = db;
  const result: DatabaseDrill = blankDrill({ id, name: db.name }, 'passed');
  const checks = new CheckRecorder(result);
  const service = serviceView(starting.api, id).catch(() => null);
  const selected = await selectBackup(starting, id, checks);
  if (!selected) {
    result.service = await service;
    return result;
  }
  const run: DrillRun = { ...starting, scratch: await starting.scratch };

  const name = scratchName(id);
  const target = run.scratch.target(name);
  const restored = await restoreIntoScratch(run, id, selected, target).catch(async (err: unknown) => {
    await dropScratch(run, id, name);
    throw err;
  });
  const { receipt } = restored;
  Object.assign(result, {
    receipt,
    restoreJobId: receipt?.restoreJobId ?? null,
    phases: receipt?.phasesMs ?? {},
    placeholderRoles: receipt?.placeholderRoles ?? [],
    notRestored: receipt?.notRestored ?? [],
  });
  for (const n of result.notRestored!) run.progress(id, `not restored: ${n.type.toLowerCase()} ${n.name}: ${n.reason}`);

  // The checks in the contract's order, through the data in what was restored.
  const restoredAny = wasRestored(restored);
  // The data check and the count share one session, as the owner role (nothing of the backup runs as the superuser),
  // its names resolved in pg_catalog only: nothing the archive planted is reached through search_path.
  const as = restored.roles ? asOwner(target, restored.roles.owner) : target;
  const data = new DataSession(targetConfig(as, { env: run.deps.env, database: name, catalogOnly: true }), run.deps.scrubber, run.deps.signal);
  try {
    const state: CheckState = { run, database: name, restored, backupStarted: Boolean(selected.selection.startedAt), result, data };
    await checks.run(drillChecks(run), state);
    await data.close();
  } catch (err) {
    await data.close();
    // Interrupted (or failed) in a check: the scratch database must not outlive the run, on an operator's server least of all.
    if (run.deps.signal.aborted || !run.keep || !(await keepScratch(run, id, target))) await dropScratch(run, id, name);
    throw err;
  }
  if (restored.createdAt !== undefined && restoredAny) result.recoveryTimeMs = Math.round(performance.now() - restored.createdAt);

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

/** backup_selected: the backup the rule chooses, its facts in the document; where there is none, every other check skipped. */
async function selectBackup(run: StartingRun, id: string, checks: CheckRecorder): Promise<SelectedBackup | undefined> {
  const selecting = performance.now();
  let selected: SelectedBackup;
  try {
    selected = await chooseBackup(run.api, run.rule(id), id);
  } catch (err) {
    if (run.deps.signal.aborted || !isCliError(err)) throw err;
    const failure = { code: err.details.code, exitCode: err.exitCode, message: err.message };
    checks.record('backup_selected', { status: 'failed', durationMs: Math.round(performance.now() - selecting), detail: err.message, failure });
    checks.skipAll(drillChecks(run), 'no backup selected');
    run.progress(id, `failed: ${err.message}`);
    return undefined;
  }
  const detail = describeSelection(selected, run.now());
  checks.record('backup_selected', { status: 'passed', durationMs: Math.round(performance.now() - selecting), detail });
  const { startedAt, completedAt, backupJobId } = selected.selection;
  Object.assign(checks.result, {
    backupJobId,
    backupStartedAt: startedAt,
    backupCompletedAt: completedAt,
    backupAgeSeconds: backupAgeSeconds(selected.selection, run.now()),
  });
  run.progress(id, describeSelection(selected, run.now()).replace(/\.$/, ''));
  return selected;
}

async function dropScratch(run: DrillRun, id: string, name: string): Promise<void> {
  const failed = await run.scratch.drop(name);
  if (failed) run.progress(id, `could not drop the scratch database ${name}: ${failed}`);
}
