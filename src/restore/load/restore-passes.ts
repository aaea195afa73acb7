import type { ArchiveHeader } from '../archive/archive.js';
import { pgRestoreArgs, type PgRestoreRun } from './pg-restore.js';
import type { RestorePlan } from '../plan.js';
import { writeRestoreList } from '../archive/restore-list.js';
import { PG_CLASS, type Toc, type TocEntry } from '../archive/toc.js';

/**
 * One pg_restore run of a restore. Most restores are one pass. Where the archive holds data of
 * extension configuration tables (pg_extension_config_dump: TABLE DATA entries whose table is an
 * extension member, so the listing has no TABLE entry for it) and the restore is parallel, that data
 * goes first, one table at a time in the archive's order (pg_dump orders it by the foreign keys
 * between such tables), because parallel pg_restore loads them at once and races the foreign key
 * (PostGIS topology's topology.layer -> topology.topology; cli-contract 7.13): pass 1 the pre-data
 * section, pass 2 that data serially, pass 3 the rest of the data and the post-data with --jobs.
 */
export interface RestorePass {
  /** Only these dump ids, in this order (pg_restore -L); undefined: every entry. */
  ids?: number[];
  sections?: Array<'pre-data' | 'data' | 'post-data'>;
  jobs: number;
}

/** TABLE DATA entries of tables the archive does not create: extension configuration tables. */
export function extensionConfigData(toc: Toc): TocEntry[] {
  const tables = new Set(toc.entries.filter((e) => e.tableoid === PG_CLASS && e.desc === 'TABLE').map((e) => e.words));
  return toc.entries.filter((e) => e.tableoid === 0 && e.desc === 'TABLE DATA' && !tables.has(e.words));
}

/** pg_restore jobs for this archive: a tar archive cannot be restored in parallel (pg_restore refuses). */
export function effectiveJobs(plan: Pick<RestorePlan, 'jobs'>, header: ArchiveHeader): number {
  return header.format === 'tar' ? 1 : plan.jobs;
}

/** The passes of this restore; `wanted` the entries to restore (every entry of the listing unless left out). */
export function restorePasses(toc: Toc, jobs: number, wanted?: TocEntry[]): RestorePass[] {
  const ids = wanted?.map((e) => e.dumpId);
  const wantedIds = new Set(ids ?? toc.entries.map((e) => e.dumpId));
  const config = extensionConfigData(toc).filter((e) => wantedIds.has(e.dumpId));
  // Serially, pg_restore follows the archive's order, dependencies first: one pass is right.
  if (jobs <= 1 || config.length === 0) return [{ ids, jobs }];
  const configIds = new Set(config.map((e) => e.dumpId));
  const all = ids ?? toc.entries.map((e) => e.dumpId);
  return [
    { ids, sections: ['pre-data'], jobs: 1 },
    { ids: config.map((e) => e.dumpId), jobs: 1 },
    { ids: all.filter((id) => !configIds.has(id)), sections: ['data', 'post-data'], jobs },
  ];
}

/** pg_restore's argv for one pass; `noTablespaces` adds --no-tablespaces. */
export function passArgs(
  pass: RestorePass,
  refusals: boolean,
  database: string,
  archivePath: string,
  list: string | undefined,
  noTablespaces: boolean,
): string[] {
  const args = pgRestoreArgs({ jobs: pass.jobs, refusals }, database, archivePath, list);
  const extra = [...(pass.sections ?? []).map((s) => `--section=${s}`), ...(noTablespaces ? ['--no-tablespaces'] : [])];
  // Options before the connection and the archive, which pgRestoreArgs puts last.
  args.splice(args.length - 2, 0, ...extra);
  return args;
}

/** Runs the passes in order, each with its -L list written into `dir` (the run's private temp dir). */
export async function runPasses(
  passes: RestorePass[],
  dir: string,
  args: (pass: RestorePass, list: string | undefined) => string[],
  run: (args: string[]) => Promise<PgRestoreRun>,
): Promise<PgRestoreRun> {
  let last: PgRestoreRun = { exitCode: 0, durationMs: 0 };
  let durationMs = 0;
  for (const [i, pass] of passes.entries()) {
    const list = pass.ids ? await writeRestoreList(dir, `pass-${i + 1}`, pass.ids) : undefined;
    last = await run(args(pass, list));
    durationMs += last.durationMs;
  }
  return { exitCode: last.exitCode, durationMs };
}
