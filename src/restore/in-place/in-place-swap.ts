import { LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import type { Reporter } from '../../ui/reporter.js';
import { carryOver } from './database-carry.js';
import {
  describeSession,
  freeKeptName,
  inPlaceCommands,
  inUse,
  lastingSessions,
  sessionsSql,
  type InPlaceNames,
  type InPlaceReport,
  type Session,
} from './in-place.js';
import { PgError } from '../../pg/errors.js';
import { quoteIdent } from '../../pg/quote.js';
import { onEnv, queryEnv } from '../../pg/target-session.js';
import type { RestorePlan } from '../plan.js';
import { onMaintenanceDb } from '../target/target-database.js';

type Env = Record<string, string | undefined>;

/** How long the swap's own statements may take: they run to the end even after a signal, so the swap is never left half done. */
const SWAP_TIMEOUT_MS = 30_000;

/**
 * The end of an in-place restore (cli-contract 7.17), once the new database is restored, analysed
 * and checked: it gets the replaced database's owner, privileges, settings and comment; the target
 * stops taking connections; its other sessions are ended (--terminate-connections) or named (exit
 * 7); then both names change in one transaction, the replaced database staying as `names.kept`
 * (dropped with --drop-previous). A failure before the renames commit leaves the target as it was,
 * taking connections again.
 */
export async function swapIn(
  plan: RestorePlan,
  planned: InPlaceNames,
  env: Env,
  deps: { reporter: Reporter; scrubber: SecretScrubber; signal: AbortSignal },
): Promise<InPlaceReport> {
  const { scrubber, reporter: ui } = deps;
  const { maintenance, taken } = await onMaintenanceDb((database) =>
    onEnv({ env, database, scrubber, signal: deps.signal }, async (client) => ({
      maintenance: database,
      taken: (await client.query<{ datname: string }>('SELECT datname FROM pg_database')).rows.map((r) => r.datname),
    })),
  );
  const names = { ...planned, kept: freeKeptName(planned, new Set(taken)) };
  const carried = await carryOver(names.target, names.fresh, maintenance, env, scrubber, deps.signal, !plan.databaseSettings);
  for (const n of carried.notApplied) ui.warn(`Not carried over from the replaced database: ${n.statement} (${n.reason})`);

  const [target, fresh, kept] = [names.target, names.fresh, names.kept].map(quoteIdent);
  // A session per statement, each bounded on its own: the one that turns connections back on must not depend on an earlier one.
  const run = <R extends object = object>(sql: string, params?: unknown[]) =>
    queryEnv<R>({ env, database: maintenance, scrubber, signal: AbortSignal.timeout(SWAP_TIMEOUT_MS) }, sql, params);
  const sessions = async () => (await run<{ s: Session[] }>(`SELECT ${sessionsSql('$1')} AS s`, [names.target]))[0]!.s;
  let terminated: Session[] = [];
  // No new session from here on, the application's pool reconnecting included; svc's own run on the maintenance database.
  await run(`ALTER DATABASE ${target} ALLOW_CONNECTIONS false;`).catch(refused('stop new connections to'));
  try {
    const others = await lastingSessions(await sessions(), sessions, deps.signal);
    if (others.length && !plan.terminateConnections)
      throw inUse(names.target, others, 'at the swap; svc swaps the restored database in only once they have ended');
    if (others.length) {
      await run(
        `SELECT pg_terminate_backend(a.pid, 10000) FROM pg_stat_activity a WHERE a.datname = $1 AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'`,
        [names.target],
      );
      const left = await sessions();
      if (left.length) throw inUse(names.target, left, 'that svc could not end (--terminate-connections)');
      terminated = others;
      ui.info(`Ended ${others.length} other session(s) on "${names.target}": ${others.map(describeSession).join('; ')}.`);
    }
    await run(`BEGIN;\nALTER DATABASE ${target} RENAME TO ${kept};\nALTER DATABASE ${fresh} RENAME TO ${target};\nCOMMIT;`).catch(
      refused('swap in the restored database for'),
    );
  } catch (err) {
    await run(`ALTER DATABASE ${target} ALLOW_CONNECTIONS true;`).catch(() =>
      ui.warn(`"${names.target}" may still refuse new connections: ALTER DATABASE ... ALLOW_CONNECTIONS true failed.`),
    );
    throw err;
  }
  const report: InPlaceReport = { kept: names.kept, droppedPrevious: false, terminated, carriedOver: carried.applied, notCarriedOver: carried.notApplied };
  if (plan.dropPrevious) {
    try {
      await run(`DROP DATABASE ${kept};`);
      return { ...report, kept: null, droppedPrevious: true };
    } catch (err) {
      if (!(err instanceof PgError)) throw err;
      ui.warn(`The swap succeeded, but dropping the replaced database "${names.kept}" failed (${err.reason}); it is kept.`);
    }
  }
  await run(`ALTER DATABASE ${kept} ALLOW_CONNECTIONS true;`).catch(() =>
    ui.warn(`The replaced database "${names.kept}" refuses connections until ALTER DATABASE ... ALLOW_CONNECTIONS true.`),
  );
  return { ...report, commands: inPlaceCommands(plan.target, names, maintenance) };
}

function refused(what: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof PgError) throw new LocalToolError(`Could not ${what} the target: ${err.reason}`);
    throw err;
  };
}
