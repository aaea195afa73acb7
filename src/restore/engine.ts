import { rm } from 'node:fs/promises';
import type { RestoreExecutionCoordinates, RestoreMode } from '../api/schemas/restores.js';
import { InterruptedError, LocalToolError } from '../errors.js';
import { formatBytes } from '../output/format.js';
import type { Session } from '../session.js';
import { byteProgress } from '../ui/progress.js';
import { assertRestorable, readArchiveHeader } from './archive.js';
import { downloadArtifact } from './download.js';
import { runPgRestore, pgRestoreArgs } from './pg-restore.js';
import { createTargetDatabase, type PreflightResult } from './preflight.js';
import { redactedDsn, type Target } from './target.js';
import { trackTempDir, untrackTempDir } from './temp-dirs.js';
import { assertFreeSpace, privateRunDir } from './workdir.js';

export interface EngineOptions {
  target: Target;
  mode: RestoreMode;
  jobs: number;
  /** in_place: a single transaction (the default; --jobs opts out). */
  atomic: boolean;
  workDir: string;
  keepArtifact: boolean;
}

export interface RestoreOutcome {
  artifactBytes: number;
  sha256: string;
  verified: boolean;
  pgRestoreExitCode: number;
  durationMs: number;
  /** Only with --keep-artifact. */
  keptArtifactPath?: string;
}

type Phase = 'download' | 'verify' | 'restore';

/** What an interruption or failure in each phase means for the target database, said plainly. */
export function targetStateAfter(phase: Phase, opts: EngineOptions): string {
  const where = redactedDsn(opts.target);
  if (phase !== 'restore') return `The target ${where} was not touched.`;
  if (opts.mode === 'new_database') {
    return `The new database "${opts.target.database}" may be partly restored: drop it before trying again (dropdb -h ${opts.target.host} -p ${opts.target.port} -U ${opts.target.user} ${opts.target.database}).`;
  }
  if (opts.atomic) return `pg_restore ran in a single transaction, so it was rolled back: ${where} is as it was before.`;
  return `pg_restore ran with --jobs ${opts.jobs}, not in one transaction: ${where} may now be partly restored.`;
}

/**
 * Steps 4-8 of cli-contract 7: download with size and SHA-256 in one pass, check, restore, clean up.
 * The presigned URL and lock token stay in `coords`, in memory: never printed, logged or written.
 */
export async function executeRestore(
  session: Session,
  pre: PreflightResult,
  opts: EngineOptions,
  coords: RestoreExecutionCoordinates,
): Promise<RestoreOutcome> {
  const { ctx, ui } = session;
  session.secrets.add(coords.presignedS3Url);
  session.secrets.add(coords.lockToken);
  const started = performance.now();
  let phase: Phase = 'download';
  let runDir: string | undefined;
  let keep = false;
  try {
    await assertFreeSpace(opts.workDir, coords.expectedSizeBytes);
    runDir = await privateRunDir(opts.workDir);
    trackTempDir(runDir);

    const progress = await byteProgress(ui, 'Downloading artifact');
    const artifact = await downloadArtifact({
      url: coords.presignedS3Url,
      expectedSize: coords.expectedSizeBytes,
      expectedSha256: coords.expectedSha256,
      dir: runDir,
      signal: ctx.signal,
      maxRetries: session.settings.maxRetries,
      timeoutMs: session.settings.timeoutMs,
      sleep: ctx.sleep,
      random: ctx.random,
      onProgress: (received, total) => progress.update(received, total),
      onNotice: (m) => ui.warn(m),
    }).finally(() => progress.stop());
    ui.info(`Verified ${formatBytes(artifact.bytes)}, SHA-256 ${artifact.sha256}.`);

    phase = 'verify';
    assertRestorable(await readArchiveHeader(artifact.path), pre.pgRestore);

    phase = 'restore';
    if (pre.createDatabase) {
      await createTargetDatabase(opts.target, pre.pgEnv, session.secrets, ctx.signal);
      ui.info(`Created database "${opts.target.database}" (TEMPLATE template0).`);
    }
    if (opts.mode === 'in_place' && !opts.atomic) {
      ui.warn(`--jobs ${opts.jobs}: the in-place restore is not one transaction; a failure can leave the target partly restored.`);
    }
    const spinner = await ui.spinner(`Running pg_restore into ${redactedDsn(opts.target)}`);
    const args = pgRestoreArgs({ mode: opts.mode, jobs: opts.jobs, atomic: opts.atomic }, opts.target.database, artifact.path);
    const result = await runPgRestore(args, pre.pgEnv.env, session.secrets, ctx.signal).finally(() => spinner.stop());

    keep = opts.keepArtifact;
    return {
      artifactBytes: artifact.bytes,
      sha256: artifact.sha256,
      verified: true,
      pgRestoreExitCode: result.exitCode,
      durationMs: Math.round(performance.now() - started),
      keptArtifactPath: keep ? artifact.path : undefined,
    };
  } catch (err) {
    throw explainFailure(err, phase, opts, ctx.signal.aborted);
  } finally {
    if (runDir && !keep) await rm(runDir, { recursive: true, force: true });
    if (runDir) untrackTempDir(runDir);
    await pre.pgEnv.dispose();
  }
}

function explainFailure(err: unknown, phase: Phase, opts: EngineOptions, aborted: boolean): unknown {
  const state = targetStateAfter(phase, opts);
  if (err instanceof InterruptedError || aborted) {
    const during = phase === 'restore' ? 'while restoring' : 'during the download';
    return new InterruptedError(`Interrupted ${during}; the partial artifact was removed. ${state}`);
  }
  if (err instanceof LocalToolError && phase === 'restore') {
    return new LocalToolError(`${err.message}\n${state}`, err.details.hint);
  }
  return err;
}
