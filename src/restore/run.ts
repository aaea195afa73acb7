import type { CreateRestoreResponse, RestoreJob } from '../api/schemas/restores.js';
import type { Prompter } from '../context.js';
import { isCliError } from '../errors.js';
import { setExitNote } from '../exit-note.js';
import { exitCodeForSignal } from '../exit-codes.js';
import { UserFiles } from '../output/user-file.js';
import type { SecretScrubber } from '../secrets.js';
import { countProgress } from '../ui/progress.js';
import type { Reporter } from '../ui/reporter.js';
import { readArchiveHeader } from './archive.js';
import { assertArchiveFits } from './archive-fit.js';
import { countArchiveRows, type ArchiveRowCount, type ArchiveRowsResult } from './archive-rows.js';
import { readArchiveScript } from './archive-script.js';
import type { BackupSelection } from './backup-selection.js';
import { confirmInPlace } from './confirm.js';
import { fetchArtifact } from './fetch-artifact.js';
import { explainFailure, targetStateAfter } from './failure.js';
import { analyzeTarget, checkTarget } from './inventory.js';
import { runPgRestore } from './pg-restore.js';
import { RestoreProgress } from './restore-progress.js';
import { pgRestoreFor } from './pg-restore-choice.js';
import { PhaseClock } from './phase-clock.js';
import { defaultJobs, type Phase, type RestorePlan } from './plan.js';
import { preflight, type PreflightResult } from './preflight.js';
import { buildReceipt, writeReceipt, type Receipt, type ReceiptFacts } from './receipt.js';
import { RunScope } from './scope.js';
import { redactedDsn } from './target.js';
import { createTargetDatabase } from './target-database.js';
import { sending, settlePartial, type Creation } from './partial-database.js';
import { applyFidelitySettings, planFidelity } from './database-fidelity.js';
import { effectiveJobs, passArgs, restorePasses, runPasses } from './restore-passes.js';
import { hasTableData, readToc } from './toc.js';
import { assertRolesExist, restrict, superuserWarning, type Restricted } from './unprivileged.js';
import { assertFreeSpace } from './workdir.js';

type Env = Record<string, string | undefined>;

/** Everything a run needs from outside: one object, so tests hand in fakes and a real signal. */
export interface RestoreDeps {
  /** Aborted by SIGINT, SIGTERM or SIGHUP; the reason is the signal's name. */
  signal: AbortSignal;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => Date;
  reporter: Reporter;
  scrubber: SecretScrubber;
  /** The artifact download's retries, timeout and proxy settings. */
  http: { maxRetries: number; timeoutMs: number; env: Env };
  /** The environment child tools (psql, pg_restore) start from. */
  env: Env;
  prompter: Prompter;
  /** Told as each phase starts (a drill's progress lines). */
  onPhase?: (phase: Phase) => void;
  /** Given the receipt, success or failure (a drill keeps it in its report). */
  onReceipt?: (receipt: Receipt) => void;
}

/** What the service said of the backup before anything was created. */
export interface ServiceCheck {
  /** How the backup was chosen (cli-contract 7, step 0), for the receipt and the --json document. */
  selection?: BackupSelection;
  /** The artifact's size, for the disk check before any job exists. */
  artifactBytes?: number;
  /** "bj_0007 of orders-prod (db_orders), completed ... (3d ago), 92.9 KiB": named by the in-place prompt. */
  backup?: string;
}

/**
 * Where the restore job comes from. `restore create` asks the service about the backup (`check`:
 * getBackup, and for a dry run getProfile too) and then calls createRestore (`create`), after
 * preflight, so a refused restore leaves no job behind; `restore run` brings the 202 body it read
 * from stdin (`created`). A dry run passes a check and neither of the others.
 */
export interface RestoreSource {
  /** The first API calls, after the local preflight: choose the backup, say which, and check it. */
  check?: () => Promise<ServiceCheck>;
  create?: (targetRedactedDsn: string) => Promise<CreateRestoreResponse>;
  created?: CreateRestoreResponse;
}

export interface RestoreOutcome {
  restoreJob: RestoreJob;
  artifactBytes: number;
  sha256: string;
  verified: true;
  pgRestoreExitCode: number;
  durationMs: number;
  /** Milliseconds per phase that ran. */
  phases: Partial<Record<Phase, number>>;
  receipt: Receipt;
  /** Whether the archive holds table rows at all (a schema-only dump does not): what a drill's data check needs to know. */
  tableData: boolean;
  /** The archive's rows per table, where the plan asked for them (a drill's rows_match). */
  archiveRows?: ArchiveRowsResult;
  /** Only with --keep-artifact. */
  keptArtifactPath?: string;
  /** What a least-privilege restore left out, each by name and why (cli-contract 7.14). */
  notRestored: Restricted['notRestored'];
  /** The NOLOGIN roles created for the archive (a drill's, cli-contract 9.9). */
  placeholderRoles: string[];
  /** Said on stderr too: a superuser target (cli-contract 7.14). */
  warnings: string[];
}

export type RestoreResult =
  | { dryRun: true; preflight: PreflightResult; check: ServiceCheck | undefined }
  | { dryRun: false; outcome: RestoreOutcome };

/**
 * The one local restore run (cli-contract 7): preflight, the service's word on the backup, the
 * in-place confirmation, the optional createRestore, download and verify in one pass, the archive
 * against the target, pg_restore, ANALYZE, the object check, the receipt and clean-up. It creates
 * and disposes the PGPASSFILE, every temp dir and a partial new database exactly once, in its own
 * catch and finally, whatever fails or whichever signal arrives. The presigned URL and lock token
 * stay in memory: never printed, logged or written.
 */
export async function runRestore(plan: RestorePlan, source: RestoreSource, deps: RestoreDeps): Promise<RestoreResult> {
  const scope = new RunScope();
  // Should a second signal end the process mid-phase, it still says what state the target is in.
  const clock = new PhaseClock((phase) => {
    setExitNote(targetStateAfter(phase, plan));
    deps.onPhase?.(phase);
  });
  const { reporter: ui, signal, scrubber } = deps;
  const startedAt = deps.now();
  const dryRun = !source.create && !source.created;
  const facts: ReceiptFacts = {};
  let failure: Receipt['failure'] = null;
  let receipt: Receipt | undefined;
  let creation: Creation | undefined;
  let archiveRows: ArchiveRowCount | undefined;
  const finish = () =>
    (receipt = buildReceipt(
      { mode: plan.mode, targetRedactedDsn: redactedDsn(plan.target), startedAt, endedAt: deps.now(), phasesMs: clock.durations },
      facts,
      failure,
    ));
  try {
    const pgEnv = await scope.pgEnv(plan.target, deps.env);
    const pre = await preflight(plan, deps.env, pgEnv, deps);
    if (pre.createDatabase) creation = { state: 'planned' };
    facts.pgRestoreVersion = pre.pgRestore.text;
    facts.targetServerVersion = pre.serverVersion;
    const warnings: string[] = [];
    // A drill says itself whom it restores as; an operator's own target is named here.
    if (pre.superuser && !plan.roles && !plan.scratch) warnings.push(superuserWarning(plan.target));
    const known = await source.check?.();
    // After the backup's choice, which is said before anything else (cli-contract 7, step 0).
    for (const w of warnings) ui.warn(w);
    Object.assign(facts, { selection: known?.selection, backupJobId: known?.selection?.backupJobId });
    // The artifact's size from getBackup: a work dir too small is found before any job exists.
    if (known?.artifactBytes !== undefined) await assertFreeSpace(plan.workDir, known.artifactBytes);
    if (dryRun) return { dryRun: true, preflight: pre, check: known };
    // After every service check, and outside every phase: the time a person takes to type is no part of a restore.
    if (plan.mode === 'in_place' && !plan.confirm) await clock.outside(() => confirmInPlace(plan, known?.backup, deps.prompter, signal));

    clock.enter('createRestore');
    const job = source.created ?? (await source.create!(redactedDsn(plan.target)));
    const coords = job.execution;
    scrubber.add(coords.presignedS3Url);
    scrubber.add(coords.lockToken);
    Object.assign(facts, { restoreJobId: job.restoreJob.id, expectedBytes: coords.expectedSizeBytes, expectedSha256: coords.expectedSha256 });
    if (!source.created) ui.info(`Restore job ${job.restoreJob.id} created (${plan.mode}).`);

    clock.enter('download');
    await assertFreeSpace(plan.workDir, coords.expectedSizeBytes, 'artifact_exceeds_disk');
    const dir = await scope.tempDir(plan.workDir, 'svc-restore-');
    const artifact = await fetchArtifact(coords, dir, plan, deps);
    Object.assign(facts, { bytes: artifact.bytes, computedSha256: artifact.sha256, connections: artifact.connections });

    clock.enter('verify');
    const header = await readArchiveHeader(artifact.path);
    const pgRestore = await pgRestoreFor(header, pre.pgRestore, deps.env);
    facts.pgRestoreVersion = pgRestore.text;
    const toc = await readToc(artifact.path, pgRestore.path, deps.env, scrubber, signal);
    const script = await readArchiveScript(artifact.path, pgRestore.path, deps.env, scrubber, signal);
    assertArchiveFits(toc, header, pre, plan.target, plan.scratch ? 'fail' : 'warn', (m) => ui.warn(m));
    const fidelity = await planFidelity({ script, toc, header, plan, facts: pre, pgEnv }, deps);
    Object.assign(facts, { databaseOptions: fidelity.create && fidelity.options, tablespaces: { named: fidelity.tablespaces, ignored: fidelity.noTablespaces } });
    // Roles the archive names must be there before anything is created, unless the drill creates them.
    if (!plan.roles) await assertRolesExist(script, plan.target, pgEnv, !pre.createDatabase, scrubber, signal);

    clock.enter('restore');
    // Read alongside pg_restore, from the same verified file (cli-contract 9.11).
    if (plan.countArchiveRows) archiveRows = countArchiveRows(pgRestore.path, artifact.path, toc, dir, deps.env, scrubber, signal);
    if (pre.createDatabase) {
      const sent = (creation = sending(pgEnv));
      await createTargetDatabase(plan.target, pgEnv, scrubber, signal, { options: fidelity.create, owner: plan.roles?.owner.name, marker: plan.marker, tag: sent.tag });
      creation = { state: 'made', pgEnv };
      ui.info(`Created database "${plan.target.database}" (TEMPLATE template0${fidelity.create ? `, ${fidelity.create.describe}` : ''}).`);
    }
    if (plan.mode === 'in_place' && !plan.atomic) {
      ui.warn(`--jobs ${plan.jobs}: the in-place restore is not one transaction; a failure can leave the target partly restored.`);
    }
    const least = plan.roles && (await restrict(plan.roles, script, toc, plan.target, pgEnv, { pgEnv: (t) => scope.pgEnv(t, deps.env), scrubber, signal }));
    if (least) Object.assign(facts, { notRestored: least.notRestored, placeholderRoles: least.placeholderRoles } satisfies ReceiptFacts);
    const restoreEnv = least?.env ?? pgEnv;
    const running = `pg_restore into ${redactedDsn(plan.target)}`;
    const counter = new RestoreProgress(toc);
    const progress = await countProgress(ui, counter.display(redactedDsn(plan.target)));
    // A least-privilege restore leaves entries out (cli-contract 7.14): the passes restore the rest.
    const passes = least ? restorePasses(toc, plan, effectiveJobs(plan, header), toc.entries.filter((e) => !least.leftOut.has(e.dumpId))) : fidelity.passes;
    const result = await runPasses(
      passes,
      dir,
      (pass, list) => passArgs(pass, plan, plan.target.database, artifact.path, list, fidelity.noTablespaces),
      (args) => runPgRestore(pgRestore.path, args, restoreEnv, scrubber, signal, { counter, onObject: (done, total) => progress.update(done, total) }),
    ).catch((err: unknown) => {
      progress.fail(`${running} failed`);
      throw err;
    });
    progress.succeed(`Restored ${counter.total} objects with ${running}`);
    // Restored whole: from here on a failure leaves a complete database, which is kept.
    creation = undefined;
    facts.databaseSettings = await applyFidelitySettings(fidelity, plan.target.database, pgEnv, deps);

    if (plan.analyze) {
      clock.enter('analyze');
      // After the restore, even an atomic one, the tables can be analysed in parallel.
      await analyzeTarget(plan.target.database, plan.atomic ? defaultJobs() : plan.jobs, restoreEnv, scrubber, signal);
    }
    clock.enter('check');
    facts.inventory = await checkTarget(toc, plan.target.database, restoreEnv, scrubber, signal);
    const rows = await archiveRows?.counts();

    if (plan.keepArtifact) scope.keep(dir);
    const durationMs = clock.total();
    const outcome = {
      restoreJob: job.restoreJob,
      artifactBytes: artifact.bytes,
      sha256: artifact.sha256,
      verified: true as const,
      pgRestoreExitCode: result.exitCode,
      durationMs,
      phases: clock.durations,
      receipt: finish(),
      tableData: hasTableData(toc),
      archiveRows: rows,
      keptArtifactPath: plan.keepArtifact ? artifact.path : undefined,
      notRestored: least?.notRestored ?? [],
      placeholderRoles: least?.placeholderRoles ?? [],
      warnings,
    };
    return { dryRun: false, outcome };
  } catch (err) {
    clock.total();
    const partial = creation && (await settlePartial(plan, creation, scrubber));
    const explained = explainFailure(err, clock.current, plan, signal.aborted, partial);
    const exitCode = signal.aborted ? exitCodeForSignal(signal.reason) : isCliError(explained) ? explained.exitCode : 1;
    failure = { phase: clock.current, exitCode, message: scrubber.scrub(explained instanceof Error ? explained.message : String(explained)) };
    throw explained;
  } finally {
    await archiveRows?.stop();
    // A receipt for failures too; not for a dry run, which restores nothing.
    if (!dryRun) {
      receipt ??= finish();
      deps.onReceipt?.(receipt);
      // A restore that succeeded has its receipt written by the command, after its result is printed
      // (cli-contract 7.15); a failed one here, without hiding the failure behind a file error.
      if (plan.receiptPath && failure) {
        await writeReceipt(plan.receiptPath, receipt, new UserFiles(scrubber)).catch((err: unknown) => ui.warn(err instanceof Error ? err.message : String(err)));
      }
    }
    await scope.dispose();
    setExitNote(undefined);
  }
}
