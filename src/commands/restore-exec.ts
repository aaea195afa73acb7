import { randomUUID } from 'node:crypto';
import { availableParallelism, tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { text as readStream } from 'node:stream/consumers';
import { createRestore } from '../api/operations.js';
import { createRestoreResponse, type CreateRestoreResponse, type RestoreMode } from '../api/schemas/restores.js';
import { UsageError } from '../errors.js';
import { formatBytes } from '../output/format.js';
import { fields, text } from '../output/writer.js';
import { executeRestore, type EngineOptions, type RestoreOutcome } from '../restore/engine.js';
import { pgRestoreArgs } from '../restore/pg-restore.js';
import { preflight, type PreflightResult } from '../restore/preflight.js';
import { parseTarget, redactedDsn, type Target } from '../restore/target.js';
import type { Session } from '../session.js';
import { idempotencyKey, positiveInt, requireId } from './args.js';
import { restoreJobBlocks } from './restore-view.js';

export interface RestoreFlags {
  target?: string;
  inPlace?: boolean;
  confirm?: boolean;
  jobs?: string;
  workDir?: string;
  keepArtifact?: boolean;
  dryRun?: boolean;
  idempotencyKey?: string;
}

const DEFAULT_MAX_JOBS = 4;

/** --target, else SVC_TARGET_DSN; a password on the command line works but is visible in `ps`. */
function resolveTarget(session: Session, flags: RestoreFlags): Target {
  const fromFlag = flags.target;
  const raw = fromFlag ?? session.ctx.env.SVC_TARGET_DSN;
  if (!raw) {
    throw new UsageError('No restore target given.', 'Pass --target postgresql://user@host:5432/dbname, or set SVC_TARGET_DSN.');
  }
  const target = parseTarget(raw, session.ctx.env);
  if (target.password !== undefined) {
    // The raw URI is a secret only when it carries a password; without one it is the redacted form itself.
    session.secrets.add(target.password);
    session.secrets.add(raw);
  }
  if (fromFlag !== undefined && target.password !== undefined) {
    session.ui.warn('The password in --target is visible to other local users in the process list; prefer SVC_TARGET_DSN, PGPASSWORD or ~/.pgpass.');
  }
  return target;
}

function engineOptions(flags: RestoreFlags, target: Target, mode: RestoreMode): EngineOptions {
  const explicitJobs = flags.jobs === undefined ? undefined : positiveInt(flags.jobs, '--jobs', 64);
  const atomic = mode === 'in_place' && explicitJobs === undefined;
  return {
    target,
    mode,
    jobs: explicitJobs ?? Math.min(availableParallelism(), DEFAULT_MAX_JOBS),
    atomic,
    workDir: resolve(flags.workDir ?? tmpdir()),
    keepArtifact: flags.keepArtifact === true,
  };
}

function runPreflight(session: Session, opts: EngineOptions, confirm: boolean): Promise<PreflightResult> {
  const { ctx } = session;
  return preflight(
    { target: opts.target, mode: opts.mode, confirm, workDir: opts.workDir, interactive: ctx.stdinIsTTY && ctx.stderrIsTTY },
    ctx,
    session.secrets,
  );
}

function renderOutcome(session: Session, created: CreateRestoreResponse, opts: EngineOptions, outcome: RestoreOutcome): void {
  const { artifactBytes, sha256, verified, pgRestoreExitCode, durationMs } = outcome;
  session.out.render(
    { restoreJob: created.restoreJob, execution: { artifactBytes, sha256, verified, pgRestoreExitCode, durationMs } },
    [
      text(
        `Restored backup into ${redactedDsn(opts.target)} (${opts.mode === 'in_place' ? 'in place' : 'new database'}) in ${(durationMs / 1000).toFixed(1)}s.`,
        'green',
      ),
      fields([
        ['artifact', `${formatBytes(artifactBytes)}, verified`],
        ['sha-256', sha256],
        ['pg_restore exit code', String(pgRestoreExitCode)],
        ['kept artifact', outcome.keptArtifactPath],
      ]),
      ...restoreJobBlocks(created.restoreJob, session.now()),
      text(
        'The service is not told the local result (API v1 has no operation for it): its restore job and proof flags above are its own view.',
        'dim',
      ),
    ],
  );
}

/** `svc restore create`: preflight, createRestore, then the local engine (cli-contract 7). */
export async function runRestoreCreate(session: Session, backupJobId: string, flags: RestoreFlags): Promise<void> {
  const key = idempotencyKey(flags.idempotencyKey) ?? randomUUID();
  const mode: RestoreMode = flags.inPlace ? 'in_place' : 'new_database';
  if (flags.confirm && !flags.inPlace) throw new UsageError('--confirm only applies to --in-place restores.');
  const target = resolveTarget(session, flags);
  const opts = engineOptions(flags, target, mode);
  const pre = await runPreflight(session, opts, flags.confirm === true);

  if (flags.dryRun) {
    await pre.pgEnv.dispose();
    const plan = {
      dryRun: true,
      backupJobId,
      targetRedactedDsn: redactedDsn(target),
      mode,
      createDatabase: pre.createDatabase,
      atomic: opts.atomic,
      jobs: opts.atomic ? 1 : opts.jobs,
      workDir: opts.workDir,
      pgRestore: pre.pgRestore.text,
      pgRestoreArgs: pgRestoreArgs(opts, target.database, '<artifact>'),
    };
    session.out.render(plan, [
      text('Dry run: preflight passed; nothing was created, downloaded or restored.', 'green'),
      fields([
        ['backup job', backupJobId],
        ['target', plan.targetRedactedDsn],
        ['mode', mode === 'in_place' ? `in_place (${opts.atomic ? 'single transaction' : `--jobs ${opts.jobs}, not atomic`})` : 'new_database'],
        ['create database', pre.createDatabase ? 'yes (TEMPLATE template0)' : 'no (exists and is empty)'],
        ['work dir', opts.workDir],
        ['pg_restore', plan.pgRestore],
        ['pg_restore args', plan.pgRestoreArgs.join(' ')],
      ]),
    ]);
    return;
  }

  let created: CreateRestoreResponse;
  try {
    const api = await session.api();
    created = (
      await api.send(
        createRestore({ backupJobId, targetRedactedDsn: redactedDsn(target), mode, confirmDestructive: mode === 'in_place' }, key),
      )
    ).data;
  } catch (err) {
    await pre.pgEnv.dispose();
    throw err;
  }
  session.ui.info(`Restore job ${created.restoreJob.id} created (${mode}).`);
  const outcome = await executeRestore(session, pre, opts, created.execution);
  renderOutcome(session, created, opts, outcome);
}

/** `svc restore run`: the createRestore 202 body on stdin, then the same preflight and engine. */
export async function runRestoreRun(session: Session, flags: RestoreFlags): Promise<void> {
  if (session.ctx.stdinIsTTY) {
    throw new UsageError('restore run reads the createRestore response from standard input.', 'Pipe it in: svc restore run --target ... < restore.json');
  }
  const input = await readStream(session.ctx.stdin);
  let json: unknown;
  try {
    json = JSON.parse(input);
  } catch {
    throw new UsageError('Standard input is not JSON: restore run expects the createRestore 202 body {restoreJob, execution}.');
  }
  const parsed = createRestoreResponse.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`Standard input is not a createRestore response: ${issue?.path.join('.') || '(body)'}: ${issue?.message}.`);
  }
  const created = parsed.data;
  session.secrets.add(created.execution.lockToken);
  session.secrets.add(created.execution.presignedS3Url);
  const mode = created.restoreJob.mode;
  if (flags.inPlace !== undefined && (mode === 'in_place') !== flags.inPlace) {
    throw new UsageError(`The restore job's mode is ${mode}; --in-place ${flags.inPlace ? 'contradicts' : 'is required for'} it.`);
  }
  const target = resolveTarget(session, flags);
  const opts = engineOptions(flags, target, mode);
  const pre = await runPreflight(session, opts, flags.confirm === true);
  const outcome = await executeRestore(session, pre, opts, created.execution);
  renderOutcome(session, created, opts, outcome);
}

export function backupIdArg(raw: string | undefined): string {
  return requireId(raw, '--backup');
}
