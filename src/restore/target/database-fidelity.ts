import type { Reporter } from '../../ui/reporter.js';
import type { SecretScrubber } from '../../secrets.js';
import type { ArchiveHeader } from '../archive/archive.js';
import { tablespacesOf, type ArchiveScript } from '../archive/archive-script.js';
import { assertTargetProvides } from './archive-needs.js';
import { createClauses, databaseOptions, describeOptions, type DatabaseOptions } from '../archive/database-options.js';
import { applyDatabaseSettings, archiveSettings, type ArchiveSettings, type DatabaseSettingsReport } from '../archive/database-settings.js';
import type { RestorePlan } from '../plan.js';
import { effectiveJobs, restorePasses, type RestorePass } from '../load/restore-passes.js';
import { readTargetCatalog } from './target-catalog.js';
import type { TargetFacts } from './target-database.js';
import type { Toc, TocEntry } from '../archive/toc.js';

type Env = Record<string, string | undefined>;

/** What the verify phase decided for the restore: how to create the database, the pg_restore passes, the settings to apply after. */
export interface FidelityPlan {
  /** The archive's encoding and locale, and the CREATE DATABASE clauses that give them (new_database only). */
  options?: DatabaseOptions;
  create?: { sql: string; describe: string };
  passes: RestorePass[];
  noTablespaces: boolean;
  tablespaces: string[];
  /** Settings to apply after pg_restore; undefined where they are not applied (in place without --database-settings). */
  settings?: ArchiveSettings;
}

/**
 * The archive against the target beyond its extensions (cli-contract 7.11 to 7.13), in the verify
 * phase, before anything is created: locales and tablespaces (exit 11), an in-place target of
 * another encoding or locale (a warning), the CREATE DATABASE options, the pg_restore passes.
 */
export async function planFidelity(
  args: { script: ArchiveScript; toc: Toc; header: ArchiveHeader; plan: RestorePlan; facts: TargetFacts; pgEnv: Env; wanted?: TocEntry[] },
  deps: { reporter: Reporter; scrubber: SecretScrubber; signal: AbortSignal },
): Promise<FidelityPlan> {
  const { script, plan, header } = args;
  const ui = deps.reporter;
  const options = databaseOptions(script);
  const noTablespaces = plan.noTablespaces === true;
  const catalog = await readTargetCatalog(plan.target, plan.mode, args.pgEnv, deps.scrubber, deps.signal);
  assertTargetProvides({ script, options, catalog, target: plan.target, mode: plan.mode, noTablespaces }, (m) => ui.warn(m));
  const create =
    options && args.facts.createDatabase
      ? { ...createClauses(options, args.facts.serverMajor, args.facts.serverVersion), describe: describeOptions(options) }
      : undefined;

  const tablespaces = tablespacesOf(script);
  if (noTablespaces) {
    const named = tablespaces.length ? ` (the archive names ${tablespaces.join(', ')})` : '';
    ui.info(`--no-tablespaces: every object is restored into the default tablespace${named}.`);
  }
  const jobs = effectiveJobs(plan, header);
  if (header.format === 'tar' && plan.jobs > 1) {
    ui.info(`A tar-format archive cannot be restored in parallel: pg_restore runs with one job instead of --jobs ${plan.jobs}.`);
  }
  const passes = restorePasses(args.toc, jobs, args.wanted);
  if (passes.length > 1) ui.info('Extension configuration data is restored first, one table at a time, before the parallel data phase.');
  const settings = plan.mode === 'new_database' || plan.databaseSettings ? archiveSettings(script) : undefined;
  return { options, create, passes, noTablespaces, tablespaces, settings };
}

/** After pg_restore: the archive's settings and comment on the restored database, each refusal warned and listed (not fatal). */
export async function applyFidelitySettings(
  fidelity: FidelityPlan,
  database: string,
  pgEnv: Env,
  deps: { reporter: Reporter; scrubber: SecretScrubber; signal: AbortSignal },
): Promise<DatabaseSettingsReport | undefined> {
  if (!fidelity.settings) return undefined;
  const report = await applyDatabaseSettings(fidelity.settings, database, pgEnv, deps.scrubber, deps.signal);
  if (report.applied.length) deps.reporter.info(`Applied ${report.applied.length} database setting(s) and comment(s) of the archive to "${database}".`);
  for (const n of report.notApplied) deps.reporter.warn(`Not applied: ${n.statement.replaceAll('\n', '\\n')} (${n.reason})`);
  return report;
}
