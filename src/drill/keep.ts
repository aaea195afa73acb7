import { psql, PsqlError } from '../restore/target/pg-tools.js';
import { onMaintenanceDb } from '../restore/target/target-database.js';
import { parseDrillMarker } from './marker.js';
import type { Target } from '../restore/target/target.js';
import type { DrillRun } from './drill-database.js';

/**
 * --keep keeps what it names on every path, a failed restore included (cli-contract 9.13): the
 * scratch database, even partly restored, and the cluster it is in, with the lines that reach them
 * (psql ...) and stop them (pg_ctl ... stop), said on stderr and returned for the report. undefined
 * where there is nothing to keep: the database was never created (the restore failed before).
 */
export async function keepScratch(run: DrillRun, id: string, target: Target): Promise<string[] | undefined> {
  const name = target.database;
  const env = await run.pgEnv(target);
  try {
    // A kept database is the user's now: no marker of this run may speak for it once this process is
    // gone (cli-contract 9.12), neither its comment nor its owner role's. svc's marker is removed (the
    // database is left as the backup had it: without a comment); the archive's own comment, restored
    // with the database (7.11), stays. The owner role, outside the database, says it was kept.
    const note = `svc restore drill: kept (--keep) at ${run.now().toISOString()}`;
    // From the maintenance database, never the scratch one: there the archive's settings (a search_path
    // before pg_catalog) would hand this administrative session the archive's operators (cli-contract 7.16 a).
    const sql = (script: string, vars: Record<string, string>) =>
      onMaintenanceDb((database) => psql(script, { env, database, vars, scrubber: run.deps.scrubber, signal: AbortSignal.timeout(30_000) }));
    const found = await sql(
      "SELECT json_build_object('comment', shobj_description(d.oid, 'pg_database'), 'owner', o.rolname) FROM pg_database d JOIN pg_roles o ON o.oid = d.datdba WHERE d.datname = :'db';",
      { db: name },
    );
    if (!found) return undefined;
    const facts = JSON.parse(found) as { comment: string | null; owner: string };
    if (parseDrillMarker(facts.comment)) await sql('COMMENT ON DATABASE :"db" IS NULL;', { db: name });
    if (facts.owner.startsWith('svc_drill_')) await sql('COMMENT ON ROLE :"role" IS :\'note\';', { role: facts.owner, note });
  } catch (err) {
    if (!(err instanceof PsqlError)) throw err;
    run.progress(id, `kept, but its marker could not be changed (${err.reason}): a later drill may drop it`);
  }
  const lines = run.scratch.howToReach(name);
  // Commands to copy: broken only as shell continuations at a narrow terminal.
  for (const line of lines) run.command(id, 'kept', line);
  run.onKept?.(id);
  return lines;
}
