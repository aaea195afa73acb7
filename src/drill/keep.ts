import { psql, PsqlError } from '../restore/pg-tools.js';
import type { Target } from '../restore/target.js';
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
    // A kept database is the user's now: its comment no longer names this run, so no later drill
    // takes it for an orphan once this process is gone (cli-contract 9.12).
    const note = `svc restore drill: kept (--keep) at ${run.now().toISOString()}`;
    await psql('COMMENT ON DATABASE :"db" IS :\'note\';', { env, database: name, vars: { db: name, note }, scrubber: run.deps.scrubber, signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    if (!(err instanceof PsqlError)) throw err;
    if (/database ".*" does not exist/.test(err.reason)) return undefined;
    run.progress(id, `kept, but its comment could not be changed (${err.reason}): a later drill may drop it`);
  }
  const lines = run.scratch.howToReach(name);
  // Commands to copy: broken only as shell continuations at a narrow terminal.
  for (const line of lines) run.command(id, 'kept', line);
  run.onKept?.(id);
  return lines;
}
