import { PgError } from '../pg/errors.js';
import { quoteIdent, quoteLiteral } from '../pg/quote.js';
import { onTarget } from '../pg/target-session.js';
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
  try {
    // A kept database is the user's now: no marker of this run may speak for it once this process is
    // gone (cli-contract 9.12), neither its comment nor its owner role's. svc's marker is removed (the
    // database is left as the backup had it: without a comment); the archive's own comment, restored
    // with the database (7.11), stays. The owner role, outside the database, says it was kept.
    const note = `svc restore drill: kept (--keep) at ${run.now().toISOString()}`;
    // From the maintenance database, never the scratch one: there the archive's settings (a search_path
    // before pg_catalog) would hand this administrative session the archive's operators (cli-contract 7.16 a).
    const opts = { env: run.deps.env, scrubber: run.deps.scrubber, signal: AbortSignal.timeout(30_000) };
    const exists = await onMaintenanceDb((database) =>
      onTarget(target, { ...opts, database }, async (client) => {
        const found = await client.query<{ comment: string | null; owner: string }>(
          "SELECT shobj_description(d.oid, 'pg_database') AS comment, o.rolname AS owner FROM pg_database d JOIN pg_roles o ON o.oid = d.datdba WHERE d.datname = $1",
          [name],
        );
        const facts = found.rows[0];
        if (!facts) return false;
        if (parseDrillMarker(facts.comment)) await client.query(`COMMENT ON DATABASE ${quoteIdent(name)} IS NULL`);
        if (facts.owner.startsWith('svc_drill_')) await client.query(`COMMENT ON ROLE ${quoteIdent(facts.owner)} IS ${quoteLiteral(note)}`);
        return true;
      }),
    );
    if (!exists) return undefined;
  } catch (err) {
    if (!(err instanceof PgError)) throw err;
    run.progress(id, `kept, but its marker could not be changed (${err.reason}): a later drill may drop it`);
  }
  const lines = run.scratch.howToReach(name);
  // Commands to copy: broken only as shell continuations at a narrow terminal.
  for (const line of lines) run.command(id, 'kept', line);
  run.onKept?.(id);
  return lines;
}
