import { isCliError } from '../errors.js';
import { setExitNote } from '../exit-note.js';
import { exitCodeForSignal } from '../exit-codes.js';
import { UserFiles } from '../output/user-file.js';
import type { SecretScrubber } from '../secrets.js';
import { countProgress } from '../ui/progress.js';
import { readArchiveHeader } from './archive/archive.js';
import { assertArchiveFits } from './target/archive-fit.js';
import { countArchiveRows, type ArchiveRowCount } from './archive/archive-rows.js';
import { readArchiveScript } from './archive/archive-script.js';
import { confirmInPlace } from './target/confirm.js';
import { fetchArtifact } from './download/fetch-artifact.js';
import { explainFailure, targetStateAfter } from './failure.js';
import { freshPlan, inPlaceNames, type InPlaceNames } from './in-place/in-place.js';
import { swapIn } from './in-place/in-place-swap.js';
import { analyzeTarget, checkTarget } from './load/inventory.js';
import { runPgRestore } from './load/pg-restore.js';
import { applyPublicRevokes } from './archive/public-revokes.js';
import { EntryErrors, refusedEntries } from './load/refusals.js';
import { RestoreProgress } from './load/restore-progress.js';
import { pgRestoreFor } from './target/pg-restore-choice.js';
import { PhaseClock } from './phase-clock.js';
import type { RestorePlan } from './plan.js';
import { preflight } from './target/preflight.js';
import { buildReceipt, writeReceipt, type Receipt, type ReceiptFacts } from './receipt.js';
import { RunScope } from './scope.js';
import { redactedDsn } from './target/target.js';
import { createTargetDatabase } from './target/target-database.js';
import { sending, settlePartial, type Creation } from './load/partial-database.js';
import { applyFidelitySettings, planFidelity } from './target/database-fidelity.js';
import { effectiveJobs, passArgs, restorePasses, runPasses } from './load/restore-passes.js';
import { hasTableData, readToc } from './archive/toc.js';
import { assertRolesExist, restrict, superuserWarning } from './load/unprivileged.js';
import { assertFreeSpace } from './download/workdir.js';

type Env = Record<string, string | undefined>;

import type { RestoreDeps, RestoreResult, RestoreSource } from './run-types.js';

export type { RestoreDeps, RestoreOutcome, RestoreResult, RestoreSource, ServiceCheck } from './run-types.js';

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
  const { reporter: ui, signal, scrubber } = deps;
  const startedAt = deps.now();
  // In place, the backup is restored into a new database beside the target, swapped in at the end (cli-contract 7.17).
  const names: InPlaceNames | undefined = plan.mode === 'in_place' ? inPlaceNames(plan.target.database, startedAt) : undefined;
  const into = names ? freshPlan(plan, names) : plan;
  const clock = new PhaseClock((phase) => {
    setExitNote(targetStateAfter(phase, plan, undefined, names));
    deps.onPhase?.(phase);
  });
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
    // In place too: the backup goes into a new database beside the target.
    if (pre.createDatabase || names) creation = { state: 'planned' };
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
    if (plan.mode === 'in_place' && !plan.confirm) await clock.outside(() => confirmInPlace(plan, names!, known?.backup, deps.prompter, signal));

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
    const script = await readArchiveScript(artifact.path, pgRestore.path, deps.env, scrubber, signal);
    const toc = await readToc(artifact.path, pgRestore.path, deps.env, scrubber, signal, script.encoding);
    assertArchiveFits(toc, header, pre, plan.target, plan.scratch ? 'fail' : 'warn', (m) => ui.warn(m));
    const fidelity = await planFidelity({ script, toc, header, plan: into, facts: { ...pre, createDatabase: pre.createDatabase || !!names }, pgEnv }, deps);
    // In place, the database's settings stay the operator's (carried over at the swap) unless --database-settings.
    if (names && !plan.databaseSettings) fidelity.settings = undefined;
    Object.assign(facts, {
      databaseOptions: fidelity.create && fidelity.options,
      tablespaces: { named: fidelity.tablespaces, ignored: fidelity.noTablespaces },
    });
    // Roles the archive names must be there before anything is created, unless the drill creates them.
    if (!plan.roles) await assertRolesExist(script, plan.target, pgEnv, !pre.createDatabase, scrubber, signal);

    clock.enter('restore');
    // Read alongside pg_restore, from the same verified file (cli-contract 9.11).
    if (plan.countArchiveRows) archiveRows = countArchiveRows(pgRestore.path, artifact.path, toc, dir, deps.env, scrubber, signal);
    if (creation) {
      const sent = (creation = sending(pgEnv));
      await createTargetDatabase(into.target, pgEnv, scrubber, signal, {
        options: fidelity.create,
        owner: plan.roles?.owner.name,
        marker: plan.marker,
        tag: sent.tag,
      });
      creation = { state: 'made', pgEnv };
      const beside = names ? ` beside "${names.target}", to be swapped in once restored and checked` : '';
      ui.info(`Created database "${into.target.database}"${beside} (TEMPLATE template0${fidelity.create ? `, ${fidelity.create.describe}` : ''}).`);
    }
    const least = plan.roles && (await restrict(plan.roles, script, toc, into.target, pgEnv, { pgEnv: (t) => scope.pgEnv(t, deps.env), scrubber, signal }));
    if (least) Object.assign(facts, { notRestored: least.notRestored, placeholderRoles: least.placeholderRoles } satisfies ReceiptFacts);
    const restoreEnv = least?.env ?? pgEnv;
    const running = `pg_restore into ${redactedDsn(into.target)}`;
    const counter = new RestoreProgress(toc);
    const progress = await countProgress(ui, counter.display(redactedDsn(into.target)));
    // A least-privilege restore leaves entries out (cli-contract 7.14): the passes restore the rest.
    const passes = least
      ? restorePasses(
          toc,
          effectiveJobs(into, header),
          toc.entries.filter((e) => !least.leftOut.has(e.dumpId)),
        )
      : fidelity.passes;
    const refusals = least && new EntryErrors();
    const result = await runPasses(
      passes,
      dir,
      (pass, list) => passArgs(pass, !!refusals, into.target.database, artifact.path, list, fidelity.noTablespaces),
      (args) =>
        runPgRestore(pgRestore.path, args, restoreEnv, scrubber, signal, {
          counter,
          onObject: (done, total) => progress.update(done, total),
          errors: refusals,
        }),
    )
      .then((r) => {
        // What the server refused the owner role is listed, entry by entry; any other error fails (cli-contract 7.18).
        if (least && refusals) least.notRestored.push(...refusedEntries(refusals.errors, toc, script));
        return r;
      })
      .catch((err: unknown) => {
        progress.fail(`${running} failed`);
        throw err;
      });
    progress.succeed(`Restored ${counter.total} objects with ${running}`);
    // Restored whole: from here on a failure leaves a complete new database, which is kept; in place, it is dropped until swapped in.
    if (!names) creation = undefined;
    // Although privileges are not restored, what takes EXECUTE from PUBLIC is (cli-contract 7.18).
    const unrevoked = await applyPublicRevokes(script, into.target.database, restoreEnv, { scrubber, signal, client: toc.encoding.client });
    if (least) least.notRestored.push(...unrevoked);
    else for (const u of unrevoked) ui.warn(`Not restored: ${u.name}: ${u.reason}.`);
    facts.databaseSettings = await applyFidelitySettings(fidelity, into.target.database, restoreEnv, deps);

    if (plan.analyze) {
      clock.enter('analyze');
      await analyzeTarget(into.target.database, plan.jobs, restoreEnv, scrubber, signal, toc.encoding.client);
    }
    clock.enter('check');
    facts.inventory = await checkTarget(toc, into.target.database, restoreEnv, scrubber, signal);
    const rows = await archiveRows?.counts();
    if (names) {
      clock.enter('swap');
      facts.inPlace = await swapIn(plan, names, pgEnv, deps);
      creation = undefined;
    }

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
      clientEncoding: toc.encoding.client,
      keptArtifactPath: plan.keepArtifact ? artifact.path : undefined,
      notRestored: least?.notRestored ?? [],
      placeholderRoles: least?.placeholderRoles ?? [],
      warnings,
      inPlace: facts.inPlace,
    };
    return { dryRun: false, outcome };
  } catch (err) {
    clock.total();
    const partial = creation && (await settlePartial(into, creation, scrubber));
    const explained = explainFailure(err, clock.current, plan, signal.aborted, partial, names);
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
        await writeReceipt(plan.receiptPath, receipt, new UserFiles(scrubber)).catch((err: unknown) =>
          ui.warn(err instanceof Error ? err.message : String(err)),
        );
      }
    }
    await scope.dispose();
    setExitNote(undefined);
  }
}
