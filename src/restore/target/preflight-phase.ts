import { assertFreeSpace } from '../download/workdir.js';
import { superuserWarning } from '../load/unprivileged.js';
import type { RunContext } from '../run-context.js';
import type { RestoreSource, ServiceCheck } from '../run-types.js';
import { preflight, type PreflightResult } from './preflight.js';

export interface Prepared {
  pre: PreflightResult;
  /** What the service said of the backup; undefined for `restore run`, which brings its job. */
  known: ServiceCheck | undefined;
  /** Said on stderr, and kept for the outcome. */
  warnings: string[];
}

/**
 * The preflight phase (cli-contract 7.2): the local checks, then the service's word on the backup and
 * the work dir against the artifact's size, all before any restore job exists.
 */
export async function preflightPhase(ctx: RunContext, source: RestoreSource): Promise<Prepared> {
  const { plan, deps, facts } = ctx;
  const pre = await preflight(plan, deps.env, ctx.pgEnv, deps, ctx.scratch !== undefined);
  // In place too: the backup goes into a new database beside the target.
  if (pre.createDatabase || ctx.names) ctx.creation = { state: 'planned' };
  facts.pgRestoreVersion = pre.pgRestore.text;
  facts.targetServerVersion = pre.serverVersion;
  const warnings: string[] = [];
  // A drill says itself whom it restores as; an operator's own target is named here.
  if (pre.superuser && !ctx.scratch) warnings.push(superuserWarning(plan.target));
  const known = await source.check?.();
  // After the backup's choice, which is said before anything else (cli-contract 7, step 0).
  for (const w of warnings) deps.reporter.warn(w);
  Object.assign(facts, { selection: known?.selection, backupJobId: known?.selection?.backupJobId });
  // The artifact's size from getBackup: a work dir too small is found before any job exists.
  if (known?.artifactBytes !== undefined) await assertFreeSpace(plan.workDir, known.artifactBytes);
  return { pre, known, warnings };
}
