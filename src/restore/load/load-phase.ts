import { countProgress } from '../../ui/progress.js';
import { applyPublicRevokes } from '../archive/public-revokes.js';
import type { VerifiedArchive } from '../archive/verify-phase.js';
import type { RunContext } from '../run-context.js';
import { applyFidelitySettings } from '../target/database-fidelity.js';
import { redactedDsn } from '../target/target.js';
import { createTargetDatabase } from '../target/target-database.js';
import { analyzeTarget, checkTarget } from './inventory.js';
import { sending } from './partial-database.js';
import { runPgRestore } from './pg-restore.js';
import { EntryErrors, refusedEntries } from './refusals.js';
import { effectiveJobs, passArgs, restorePasses, runPasses } from './restore-passes.js';
import { RestoreProgress } from './restore-progress.js';
import { restrict, type Restricted } from './unprivileged.js';

type Env = Record<string, string | undefined>;

/** What the restore phase did: pg_restore's exit, and what a least-privilege restore left out. */
export interface Loaded {
  pgRestoreExitCode: number;
  least: Restricted | undefined;
  /** The children's environment the restore ran with (the owner role's, least privilege), for ANALYZE and the check. */
  restoreEnv: Env;
}

/**
 * The restore phase: the new database created (its CREATE DATABASE options from the archive), a
 * drill's least-privilege set-up, pg_restore in its passes, then what privileges leave out
 * (REVOKE ... FROM PUBLIC, cli-contract 7.18) and the archive's database settings.
 */
export async function restorePhase(ctx: RunContext, archive: VerifiedArchive, artifactPath: string, dir: string): Promise<Loaded> {
  const { into, deps, names } = ctx;
  const { scrubber, signal } = deps;
  const { script, toc, fidelity } = archive;
  if (ctx.creation) await createDatabase(ctx, archive);
  const roles = ctx.scratch?.roles;
  const least = roles && (await restrict(roles, script, toc, into.target, ctx.pgEnv, { pgEnv: (t) => ctx.scope.pgEnv(t, deps.env), scrubber, signal }));
  if (least) Object.assign(ctx.facts, { notRestored: least.notRestored, placeholderRoles: least.placeholderRoles });
  const restoreEnv = least?.env ?? ctx.pgEnv;
  const pgRestoreExitCode = await runRestorePasses(ctx, archive, { artifactPath, dir, least, restoreEnv });
  // Restored whole: from here on a failure leaves a complete new database, which is kept; in place, it is dropped until swapped in.
  if (!names) ctx.creation = undefined;
  // Although privileges are not restored, what takes EXECUTE from PUBLIC is (cli-contract 7.18).
  const unrevoked = await applyPublicRevokes(script, into.target.database, restoreEnv, { scrubber, signal, client: toc.encoding.client });
  if (least) least.notRestored.push(...unrevoked);
  else for (const u of unrevoked) deps.reporter.warn(`Not restored: ${u.name}: ${u.reason}.`);
  ctx.facts.databaseSettings = await applyFidelitySettings(fidelity, into.target.database, restoreEnv, deps);
  return { pgRestoreExitCode, least, restoreEnv };
}

async function createDatabase(ctx: RunContext, { fidelity }: VerifiedArchive): Promise<void> {
  const { into, deps, names } = ctx;
  const sent = (ctx.creation = sending(ctx.pgEnv));
  await createTargetDatabase(into.target, ctx.pgEnv, deps.scrubber, deps.signal, {
    options: fidelity.create,
    owner: ctx.scratch?.roles?.owner.name,
    marker: ctx.scratch?.marker,
    tag: sent.tag,
  });
  ctx.creation = { state: 'made', pgEnv: ctx.pgEnv };
  const beside = names ? ` beside "${names.target}", to be swapped in once restored and checked` : '';
  deps.reporter.info(`Created database "${into.target.database}"${beside} (TEMPLATE template0${fidelity.create ? `, ${fidelity.create.describe}` : ''}).`);
}

/** pg_restore, pass by pass, its objects counted on a progress line; a least-privilege restore's refusals listed entry by entry. */
async function runRestorePasses(
  ctx: RunContext,
  { header, pgRestore, script, toc, fidelity }: VerifiedArchive,
  run: { artifactPath: string; dir: string; least: Restricted | undefined; restoreEnv: Env },
): Promise<number> {
  const { into, deps } = ctx;
  const { least } = run;
  const running = `pg_restore into ${redactedDsn(into.target)}`;
  const counter = new RestoreProgress(toc);
  const progress = await countProgress(deps.reporter, counter.display(redactedDsn(into.target)));
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
    run.dir,
    (pass, list) => passArgs(pass, !!refusals, into.target.database, run.artifactPath, list, fidelity.noTablespaces),
    (args) =>
      runPgRestore(pgRestore.path, args, run.restoreEnv, deps.scrubber, deps.signal, {
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
  return result.exitCode;
}

/** The analyze phase (unless --no-analyze), then the check phase: every object of the archive looked for in the target. */
export async function checkPhases(ctx: RunContext, { toc }: VerifiedArchive, restoreEnv: Env): Promise<void> {
  const { plan, into, deps, clock } = ctx;
  if (plan.analyze) {
    clock.enter('analyze');
    await analyzeTarget(into.target.database, plan.jobs, restoreEnv, deps.scrubber, deps.signal);
  }
  clock.enter('check');
  ctx.facts.inventory = await checkTarget(toc, into.target.database, restoreEnv, deps.scrubber, deps.signal);
}
