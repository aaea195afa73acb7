import type { CreateRestoreResponse, RestoreJob } from '../api/schemas/restores.js';
import type { Prompter } from '../context.js';
import { formatBytes } from '../output/format.js';
import type { SecretScrubber } from '../secrets.js';
import { byteProgress } from '../ui/progress.js';
import type { Reporter } from '../ui/reporter.js';
import { assertRestorable, readArchiveHeader } from './archive.js';
import { downloadArtifact } from './download.js';
import { explainFailure } from './failure.js';
import { pgRestoreArgs, runPgRestore } from './pg-restore.js';
import type { Phase, RestorePlan } from './plan.js';
import { preflight, type PreflightResult } from './preflight.js';
import { RunScope } from './scope.js';
import { redactedDsn } from './target.js';
import { createTargetDatabase } from './target-database.js';
import { assertFreeSpace } from './workdir.js';

type Env = Record<string, string | undefined>;

/** Everything a run needs from outside: one object, so tests hand in fakes and a real signal. */
export interface RestoreDeps {
  /** Aborted by SIGINT, SIGTERM or SIGHUP. */
  signal: AbortSignal;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  reporter: Reporter;
  scrubber: SecretScrubber;
  /** The artifact download's retries, timeout and proxy settings. */
  http: { maxRetries: number; timeoutMs: number; env: Env };
  /** The environment child tools (psql, pg_restore) start from. */
  env: Env;
  prompter: Prompter;
}

/**
 * Where the restore job comes from: `restore create` calls createRestore (after preflight, so a
 * refused restore leaves no job behind); `restore run` brings the 202 body it read from stdin.
 * A dry run passes no source: preflight only.
 */
export interface RestoreSource {
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
  /** Only with --keep-artifact. */
  keptArtifactPath?: string;
}

export type RestoreResult = { dryRun: true; preflight: PreflightResult } | { dryRun: false; outcome: RestoreOutcome };

/** Times each phase as it starts: the failure message and the receipt both read `current`. */
class PhaseClock {
  readonly durations: Partial<Record<Phase, number>> = {};
  current: Phase = 'preflight';
  readonly #started = performance.now();
  #phaseStarted = this.#started;

  enter(phase: Phase): void {
    this.#stop();
    this.current = phase;
  }

  #stop(): void {
    const now = performance.now();
    this.durations[this.current] = Math.round(now - this.#phaseStarted);
    this.#phaseStarted = now;
  }

  total(): number {
    this.#stop();
    return Math.round(performance.now() - this.#started);
  }
}

/**
 * The one local restore run (cli-contract 7): preflight, the optional createRestore, download and
 * verify in one pass, archive check, pg_restore, clean-up. It creates and disposes the PGPASSFILE
 * and every temp dir exactly once, in its own finally, whatever fails or whichever signal arrives.
 * The presigned URL and lock token stay in memory: never printed, logged or written.
 */
export async function runRestore(plan: RestorePlan, source: RestoreSource | undefined, deps: RestoreDeps): Promise<RestoreResult> {
  const scope = new RunScope();
  const clock = new PhaseClock();
  const { reporter: ui, signal, scrubber } = deps;
  try {
    const pgEnv = await scope.pgEnv(plan.target, deps.env);
    const pre = await preflight(plan, deps.env, pgEnv, deps);
    if (!source) return { dryRun: true, preflight: pre };

    clock.enter('createRestore');
    const created = source.created ?? (await source.create!(redactedDsn(plan.target)));
    const coords = created.execution;
    scrubber.add(coords.presignedS3Url);
    scrubber.add(coords.lockToken);
    if (!source.created) ui.info(`Restore job ${created.restoreJob.id} created (${plan.mode}).`);

    clock.enter('download');
    await assertFreeSpace(plan.workDir, coords.expectedSizeBytes);
    const dir = await scope.tempDir(plan.workDir, 'svc-restore-');
    const progress = await byteProgress(ui, 'Downloading artifact');
    const artifact = await downloadArtifact({
      url: coords.presignedS3Url,
      expectedSize: coords.expectedSizeBytes,
      expectedSha256: coords.expectedSha256,
      dir,
      signal,
      maxRetries: deps.http.maxRetries,
      timeoutMs: deps.http.timeoutMs,
      env: deps.http.env,
      sleep: deps.sleep,
      random: deps.random,
      onProgress: (received, total) => progress.update(received, total),
      onNotice: (m) => ui.warn(m),
    }).finally(() => progress.stop());
    ui.info(`Verified ${formatBytes(artifact.bytes)}, SHA-256 ${artifact.sha256}.`);

    clock.enter('verify');
    assertRestorable(await readArchiveHeader(artifact.path), pre.pgRestore);

    clock.enter('restore');
    if (pre.createDatabase) {
      await createTargetDatabase(plan.target, pgEnv, scrubber, signal);
      ui.info(`Created database "${plan.target.database}" (TEMPLATE template0).`);
    }
    if (plan.mode === 'in_place' && !plan.atomic) {
      ui.warn(`--jobs ${plan.jobs}: the in-place restore is not one transaction; a failure can leave the target partly restored.`);
    }
    const spinner = await ui.spinner(`Running pg_restore into ${redactedDsn(plan.target)}`);
    const result = await runPgRestore(pgRestoreArgs(plan, plan.target.database, artifact.path), pgEnv, scrubber, signal).finally(() => spinner.stop());

    if (plan.keepArtifact) scope.keep(dir);
    const durationMs = clock.total();
    return {
      dryRun: false,
      outcome: {
        restoreJob: created.restoreJob,
        artifactBytes: artifact.bytes,
        sha256: artifact.sha256,
        verified: true,
        pgRestoreExitCode: result.exitCode,
        durationMs,
        phases: clock.durations,
        keptArtifactPath: plan.keepArtifact ? artifact.path : undefined,
      },
    };
  } catch (err) {
    throw explainFailure(err, clock.current, plan, signal.aborted);
  } finally {
    await scope.dispose();
  }
}
