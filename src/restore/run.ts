import type { CreateRestoreResponse, RestoreJob } from '../api/schemas/restores.js';
import type { Prompter } from '../context.js';
import { isCliError } from '../errors.js';
import { setExitNote } from '../exit-note.js';
import { exitCodeForSignal } from '../exit-codes.js';
import { formatBytes } from '../output/format.js';
import type { SecretScrubber } from '../secrets.js';
import { byteProgress } from '../ui/progress.js';
import type { Reporter } from '../ui/reporter.js';
import { assertRestorable, readArchiveHeader } from './archive.js';
import { downloadArtifact } from './download.js';
import { explainFailure, targetStateAfter } from './failure.js';
import { analyzeTarget, checkTarget } from './inventory.js';
import { pgRestoreArgs, runPgRestore } from './pg-restore.js';
import { PhaseClock } from './phase-clock.js';
import { defaultJobs, type Phase, type RestorePlan } from './plan.js';
import { preflight, type PreflightResult } from './preflight.js';
import { buildReceipt, writeReceipt, type Receipt, type ReceiptFacts } from './receipt.js';
import { RunScope } from './scope.js';
import { redactedDsn } from './target.js';
import { createTargetDatabase } from './target-database.js';
import { readToc } from './toc.js';
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
}

/**
 * Where the restore job comes from. `restore create` asks the service about the backup (`check`:
 * getBackup, and for a dry run getProfile too) and then calls createRestore (`create`), after
 * preflight, so a refused restore leaves no job behind; `restore run` brings the 202 body it read
 * from stdin (`created`). A dry run passes a check and neither of the others.
 */
export interface RestoreSource {
  backupJobId?: string;
  check?: () => Promise<{ artifactBytes?: number }>;
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
  /** Only with --keep-artifact. */
  keptArtifactPath?: string;
}

export type RestoreResult =
  | { dryRun: true; preflight: PreflightResult; artifactBytes: number | undefined }
  | { dryRun: false; outcome: RestoreOutcome };

/**
 * The one local restore run (cli-contract 7): preflight, the service's word on the backup, the
 * optional createRestore, download and verify in one pass, archive check, pg_restore, ANALYZE, the
 * object check, the receipt and clean-up. It creates and disposes the PGPASSFILE and every temp dir
 * exactly once, in its own finally, whatever fails or whichever signal arrives. The presigned URL and
 * lock token stay in memory: never printed, logged or written.
 */
export async function runRestore(plan: RestorePlan, source: RestoreSource, deps: RestoreDeps): Promise<RestoreResult> {
  const scope = new RunScope();
  // Should a second signal end the process mid-phase, it still says what state the target is in.
  const clock = new PhaseClock((phase) => setExitNote(targetStateAfter(phase, plan)));
  const { reporter: ui, signal, scrubber } = deps;
  const startedAt = deps.now();
  const dryRun = !source.create && !source.created;
  const facts: ReceiptFacts = { backupJobId: source.backupJobId };
  let failure: Receipt['failure'] = null;
  let receipt: Receipt | undefined;
  const finish = () =>
    (receipt = buildReceipt(
      { mode: plan.mode, targetRedactedDsn: redactedDsn(plan.target), startedAt, endedAt: deps.now(), phasesMs: clock.durations },
      facts,
      failure,
    ));
  try {
    const pgEnv = await scope.pgEnv(plan.target, deps.env);
    const pre = await preflight(plan, deps.env, pgEnv, deps);
    facts.pgRestoreVersion = pre.pgRestore.text;
    facts.targetServerVersion = pre.serverVersion;
    const known = await source.check?.();
    // The artifact's size from getBackup: a work dir too small is found before any job exists.
    if (known?.artifactBytes !== undefined) await assertFreeSpace(plan.workDir, known.artifactBytes);
    if (dryRun) return { dryRun: true, preflight: pre, artifactBytes: known?.artifactBytes };

    clock.enter('createRestore');
    const created = source.created ?? (await source.create!(redactedDsn(plan.target)));
    const coords = created.execution;
    scrubber.add(coords.presignedS3Url);
    scrubber.add(coords.lockToken);
    Object.assign(facts, { restoreJobId: created.restoreJob.id, expectedBytes: coords.expectedSizeBytes, expectedSha256: coords.expectedSha256 });
    if (!source.created) ui.info(`Restore job ${created.restoreJob.id} created (${plan.mode}).`);

    clock.enter('download');
    await assertFreeSpace(plan.workDir, coords.expectedSizeBytes, 'artifact_exceeds_disk');
    const dir = await scope.tempDir(plan.workDir, 'svc-restore-');
    const progress = await byteProgress(ui, 'Downloading artifact');
    const artifact = await downloadArtifact({
      url: coords.presignedS3Url,
      expectedSize: coords.expectedSizeBytes,
      expectedSha256: coords.expectedSha256,
      dir,
      signal,
      connections: plan.connections,
      maxRetries: deps.http.maxRetries,
      timeoutMs: deps.http.timeoutMs,
      env: deps.http.env,
      sleep: deps.sleep,
      random: deps.random,
      onProgress: (received, total) => progress.update(received, total),
      onNotice: (m) => ui.warn(m),
    }).catch((err: unknown) => {
      progress.fail('Download stopped');
      throw err;
    });
    Object.assign(facts, { bytes: artifact.bytes, computedSha256: artifact.sha256, connections: artifact.connections });
    progress.succeed(`Verified ${formatBytes(artifact.bytes)}, SHA-256 ${artifact.sha256}`);

    clock.enter('verify');
    assertRestorable(await readArchiveHeader(artifact.path), pre.pgRestore);
    const toc = await readToc(artifact.path, 'pg_restore', deps.env, scrubber);

    clock.enter('restore');
    if (pre.createDatabase) {
      await createTargetDatabase(plan.target, pgEnv, scrubber, signal);
      ui.info(`Created database "${plan.target.database}" (TEMPLATE template0).`);
    }
    if (plan.mode === 'in_place' && !plan.atomic) {
      ui.warn(`--jobs ${plan.jobs}: the in-place restore is not one transaction; a failure can leave the target partly restored.`);
    }
    const running = `pg_restore into ${redactedDsn(plan.target)}`;
    const spinner = await ui.spinner(`Running ${running}`);
    const result = await runPgRestore(pgRestoreArgs(plan, plan.target.database, artifact.path), pgEnv, scrubber, signal).catch((err: unknown) => {
      spinner.fail(`${running} failed`);
      throw err;
    });
    spinner.succeed(`Restored with ${running}`);

    if (plan.analyze) {
      clock.enter('analyze');
      // After the restore, even an atomic one, the tables can be analysed in parallel.
      await analyzeTarget(plan.target.database, plan.atomic ? defaultJobs() : plan.jobs, pgEnv, scrubber, signal);
    }
    clock.enter('check');
    facts.inventory = await checkTarget(toc, plan.target.database, pgEnv, scrubber, signal);

    if (plan.keepArtifact) scope.keep(dir);
    const durationMs = clock.total();
    const outcome = {
      restoreJob: created.restoreJob,
      artifactBytes: artifact.bytes,
      sha256: artifact.sha256,
      verified: true as const,
      pgRestoreExitCode: result.exitCode,
      durationMs,
      phases: clock.durations,
      receipt: finish(),
      keptArtifactPath: plan.keepArtifact ? artifact.path : undefined,
    };
    return { dryRun: false, outcome };
  } catch (err) {
    clock.total();
    const explained = explainFailure(err, clock.current, plan, signal.aborted);
    const exitCode = signal.aborted ? exitCodeForSignal(signal.reason) : isCliError(explained) ? explained.exitCode : 1;
    failure = { phase: clock.current, exitCode, message: scrubber.scrub(explained instanceof Error ? explained.message : String(explained)) };
    throw explained;
  } finally {
    // A receipt for failures too; not for a dry run, which restores nothing.
    if (plan.receiptPath && !dryRun) await writeReceipt(plan.receiptPath, receipt ?? finish());
    await scope.dispose();
    setExitNote(undefined);
  }
}
