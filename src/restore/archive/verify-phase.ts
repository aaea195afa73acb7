import { assertRolesExist } from '../load/unprivileged.js';
import type { RunContext } from '../run-context.js';
import { assertArchiveFits } from '../target/archive-fit.js';
import { planFidelity, type FidelityPlan } from '../target/database-fidelity.js';
import { pgRestoreFor, type PgRestoreBinary } from '../target/pg-restore-choice.js';
import type { PreflightResult } from '../target/preflight.js';
import { readArchiveHeader, type ArchiveHeader } from './archive.js';
import { readArchiveScript, type ArchiveScript } from './archive-script.js';
import { readToc, type Toc } from './toc.js';

/** What the verified archive holds, and how it goes into the target. */
export interface VerifiedArchive {
  header: ArchiveHeader;
  /** The pg_restore that reads this archive (a newer one than PATH's where it must be). */
  pgRestore: PgRestoreBinary;
  script: ArchiveScript;
  toc: Toc;
  fidelity: FidelityPlan;
}

/**
 * The verify phase: the downloaded file read as an archive, and checked against the target before
 * anything is created there (its extensions, its server's major, locales, tablespaces, roles).
 */
export async function verifyPhase(ctx: RunContext, path: string, pre: PreflightResult): Promise<VerifiedArchive> {
  const { plan, deps, names } = ctx;
  const { scrubber, signal } = deps;
  const header = await readArchiveHeader(path);
  const pgRestore = await pgRestoreFor(header, pre.pgRestore, deps.env);
  ctx.facts.pgRestoreVersion = pgRestore.text;
  // The two listings at once: the table of contents is decoded in the encoding the script names.
  const reading = readArchiveScript(path, pgRestore.path, deps.env, scrubber, signal);
  const encoding = reading.then((s) => s.encoding);
  // Awaited only once the listing is done: a failed script read is thrown below, never left unhandled meanwhile.
  encoding.catch(() => {});
  const listing = readToc(path, pgRestore.path, deps.env, scrubber, signal, encoding);
  const [read, listed] = await Promise.allSettled([reading, listing]);
  if (read.status === 'rejected') throw read.reason;
  if (listed.status === 'rejected') throw listed.reason;
  const [script, toc] = [read.value, listed.value];
  assertArchiveFits(toc, header, pre, plan.target, ctx.scratch ? 'fail' : 'warn', (m) => deps.reporter.warn(m));
  const facts = { ...pre, createDatabase: pre.createDatabase || !!names };
  const fidelity = await planFidelity({ script, toc, header, plan: ctx.into, facts, pgEnv: ctx.pgEnv }, deps);
  // In place, the database's settings stay the operator's (carried over at the swap) unless --database-settings.
  if (names && !plan.databaseSettings) fidelity.settings = undefined;
  Object.assign(ctx.facts, {
    databaseOptions: fidelity.create && fidelity.options,
    tablespaces: { named: fidelity.tablespaces, ignored: fidelity.noTablespaces },
  });
  // Roles the archive names must be there before anything is created, unless the drill creates them.
  if (!ctx.scratch?.roles) await assertRolesExist(script, plan.target, ctx.pgEnv, !pre.createDatabase, scrubber, signal);
  return { header, pgRestore, script, toc, fidelity };
}
