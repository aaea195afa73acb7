import { formatBytes, timestampWithAge, yesNo } from '../../output/format.js';
import { commandsNote, fields, note, text, type Block } from '../../output/writer.js';
import { shellCommand } from '../../output/shell-quote.js';
import { UserFiles } from '../../output/user-file.js';
import { AGE_FROM_COMPLETION, recoveryPoint } from '../../restore/select/backup-selection.js';
import { objectCounts } from '../../restore/load/inventory.js';
import { PHASES, type RestorePlan } from '../../restore/plan.js';
import { connectionsFor, RANGED_MIN_BYTES } from '../../restore/download/ranged.js';
import type { PreflightResult } from '../../restore/target/preflight.js';
import { writeReceipt } from '../../restore/receipt.js';
import type { RestoreOutcome, ServiceCheck } from '../../restore/run.js';
import { redactedDsn } from '../../restore/target/target.js';
import type { Session } from '../../session.js';
import { dryRunDocument } from '../../core/restore/dry-run-document.js';
import type { Field } from '../../output/fields.js';

/** "download 1.2s, restore 17.9s": the phases that ran, in order. */
function durations(phases: RestoreOutcome['phases']): string {
  return PHASES.filter((p) => phases[p] !== undefined)
    .map((p) => `${p} ${(phases[p]! / 1000).toFixed(1)}s`)
    .join(', ');
}

/** The largest restored tables by their row estimate after ANALYZE: "public.orders ~5,000 rows, ...". */
function largestTables(estimates: Record<string, number | null> | null, analyzed: boolean): string | undefined {
  if (!estimates) return undefined;
  if (!analyzed) return 'row counts unknown (--no-analyze): the planner has no estimates yet';
  const top = Object.entries(estimates)
    .filter((e): e is [string, number] => e[1] !== null)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 3);
  return top.length ? top.map(([table, rows]) => `${table} ~${rows.toLocaleString('en-US')} rows`).join(', ') : 'no tables';
}

/**
 * The service's view of the job in one line, its `no` flags explained beside them: API v1 cannot be
 * told a local result, so the service has not verified this restore; what proves it is this run's
 * own record (cli-contract 4, v4). One line, so it never pushes the result off a 24-line screen.
 */
function serviceView(job: RestoreOutcome['restoreJob'], receiptPath: string | undefined): Field {
  const { verifiedRestore, provenRecoverability } = job.proof;
  const flags = verifiedRestore ? `verified restore yes, proven recoverability ${yesNo(provenRecoverability)}` : 'verified restore no';
  const proof = receiptPath ? "this run's receipt" : 'the result below';
  const why = verifiedRestore ? '' : ` (the service has not verified this restore; ${proof} is the local proof)`;
  return ["service's view", `${job.state}, ${flags}${why}`];
}

/** The psql command that reaches the target: the redacted URI (no password: psql asks, or reads ~/.pgpass). */
const connect = (plan: RestorePlan) => shellCommand(['psql', redactedDsn(plan.target)]);

function nextStep(plan: RestorePlan): string {
  return plan.mode === 'in_place'
    ? `"${plan.target.database}" is now the backup's database: run the application's checks before letting traffic back`
    : `check the data, then point the application at "${plan.target.database}" (or rename it into place)`;
}

/**
 * In place: where the replaced database went, and the commands that drop it or swap it back
 * (cli-contract 7.17). On a terminal the key/value block would wrap a command at its spaces, inside
 * its quoted SQL too: there the commands are lines to copy of their own, just above the result,
 * broken only as shell continuations (cli-contract 4); `aboveOnTerminal` says so.
 */
function replacedFields(inPlace: RestoreOutcome['inPlace'], aboveOnTerminal: boolean): Field[] {
  if (!inPlace) return [];
  const ended = inPlace.terminated.length ? [['sessions ended', `${inPlace.terminated.length} (--terminate-connections)`] as Field] : [];
  if (!inPlace.kept) return [...ended, ['previous', 'the replaced database was dropped (--drop-previous)']];
  const kept: Field = ['previous', `the replaced database is kept as "${inPlace.kept}" (a second copy on disk until dropped)`];
  if (aboveOnTerminal) return [...ended, [kept[0], `${kept[1]}; the commands above drop it or swap it back`]];
  return [...ended, kept, ['drop previous', inPlace.commands?.dropPrevious], ['swap back', inPlace.commands?.swapBack]];
}

/** On a terminal, the in-place commands as lines to copy (never wrapped where a shell would not read them back). */
function replacedCommands(inPlace: RestoreOutcome['inPlace'], onTerminal: boolean): Block[] {
  const commands = inPlace?.commands;
  if (!onTerminal || !commands) return [];
  return [note('To drop the replaced database, or to swap it back:', 'dim'), commandsNote([`  ${commands.dropPrevious}`, `  ${commands.swapBack}`])];
}

/**
 * The end of a restore: the --json document of cli-contract 4, or for a person the figures with the
 * service's view of the job as one line of context (API v1 gives no way to update it from here), then
 * what an operator needs (whose data, from when, the largest tables, what next, how to connect) last.
 */
export async function renderOutcome(session: Session, plan: RestorePlan, outcome: RestoreOutcome): Promise<void> {
  const { artifactBytes, sha256, verified, pgRestoreExitCode, durationMs, restoreJob: job, warnings } = outcome;
  const modeText = plan.mode === 'in_place' ? 'in place (restored beside the target, then swapped in)' : 'new database';
  const { receipt } = outcome;
  const selection = receipt.backupSelection;
  const backup = selection ? `backup ${selection.backupJobId} of ${job.databaseId}` : `the backup of ${job.databaseId}`;
  const point = selection ? recoveryPoint(selection) : undefined;
  const asOf = point
    ? point.from === 'startedAt'
      ? `${timestampWithAge(point.at, session.now())}, when the backup's dump started: nothing written after that is in it`
      : `${timestampWithAge(point.at, session.now())}, when the backup completed (${AGE_FROM_COMPLETION}): nothing written after its dump is in it`
    : undefined;
  // Both streams on a terminal: the commands go where they are never hard-wrapped (replacedFields).
  const onTerminal = session.ctx.stdoutIsTTY && session.ctx.stderrIsTTY;
  const doc = {
    restoreJob: job,
    execution: { artifactBytes, sha256, verified, pgRestoreExitCode, durationMs, receipt, warnings, ...(outcome.inPlace ? { inPlace: outcome.inPlace } : {}) },
    backupSelection: receipt.backupSelection,
    backupStartedAt: receipt.backupStartedAt,
    backupCompletedAt: receipt.backupCompletedAt,
  };
  // The figures and the service's view (one line) first, the result last: on a 24-line screen what
  // stays in view is whose data, from when, how much, how long, and how to connect (cli-contract 4, v4).
  await session.out.render(doc, [
    fields([
      ['target', redactedDsn(plan.target)],
      ['mode', modeText],
      ['artifact', `${formatBytes(artifactBytes)}, size and SHA-256 verified`],
      ['sha-256', sha256],
      ['pg_restore exit code', String(pgRestoreExitCode)],
      ['analyze', plan.analyze ? 'done: the planner has statistics' : 'skipped (--no-analyze): run ANALYZE before relying on query plans'],
      ['receipt', plan.receiptPath],
      ['kept artifact', outcome.keptArtifactPath],
      ['restore job', job.id],
      serviceView(job, plan.receiptPath),
    ]),
    text(
      `Restored ${backup} into ${redactedDsn(plan.target)} (${plan.mode === 'in_place' ? 'in place' : 'new database'}) in ${(durationMs / 1000).toFixed(1)}s.`,
      'green',
    ),
    ...replacedCommands(outcome.inPlace, onTerminal),
    fields([
      ['data as of', asOf],
      ['objects checked', receipt.objects ? objectCounts(receipt.objects) : undefined],
      ['durations', durations(outcome.phases)],
      ['largest tables', largestTables(receipt.tableRowEstimates, plan.analyze)],
      ...replacedFields(outcome.inPlace, onTerminal),
      ['next', nextStep(plan)],
      ['connect', connect(plan)],
    ]),
  ]);
  // After the result: a receipt that cannot be written is exit 2 naming it, the restore stands (cli-contract 7.15).
  if (plan.receiptPath) await writeReceipt(plan.receiptPath, receipt, new UserFiles(session.secrets));
}

/** What the download would use: parallel Range requests only for an artifact of 64 MiB and more (restore/ranged.ts). */
function downloadConnections(artifactBytes: number | null, connections: number): string {
  if (artifactBytes === null) return `up to ${connections} (parallel ranges only for an artifact of ${RANGED_MIN_BYTES / 2 ** 20} MiB and more)`;
  const used = connectionsFor(artifactBytes, connections);
  return used > 1 ? `${used} (parallel ranges)` : `1 (one stream: parallel ranges only for an artifact of ${RANGED_MIN_BYTES / 2 ** 20} MiB and more)`;
}

/** What a dry run found: the plan the real run would follow. Nothing was created, downloaded or restored. */
export async function renderDryRun(session: Session, plan: RestorePlan, check: ServiceCheck | undefined, pre: PreflightResult): Promise<void> {
  const doc = dryRunDocument(plan, check, pre);
  const { backupJobId, artifactBytes } = doc;
  await session.out.render(doc, [
    text('Dry run: the restore could start. Nothing was created, downloaded or restored.', 'green'),
    fields([
      ['backup job', `${backupJobId} (completed${artifactBytes === null ? '' : `, artifact ${formatBytes(artifactBytes)}`})`],
      ['target', doc.targetRedactedDsn],
      ['mode', plan.mode === 'in_place' ? 'in_place (restored into a new database beside the target, then swapped in)' : 'new_database'],
      ['create database', pre.createDatabase ? 'yes (TEMPLATE template0)' : 'no (exists and is empty)'],
      ['work dir', `${plan.workDir} (room for the artifact)`],
      ['connections', downloadConnections(artifactBytes, plan.connections)],
      ['pg_restore', doc.pgRestore],
      ['pg_restore args', doc.pgRestoreArgs.join(' ')],
    ]),
  ]);
}
