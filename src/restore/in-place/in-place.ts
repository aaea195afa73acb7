import type pg from 'pg';
import { CliError, LocalToolError } from '../../errors.js';
import { shellCommand } from '../../output/shell-quote.js';
import type { SecretScrubber } from '../../secrets.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { PgError } from '../../pg/errors.js';
import { onEnv } from '../../pg/target-session.js';
import { onMaintenanceDb } from '../target/target-database.js';
import type { RestorePlan } from '../plan.js';
import { quoteIdent } from '../../pg/quote.js';
import { redactedDsn, type Target } from '../target/target.js';

type Env = Record<string, string | undefined>;

/**
 * The names of an in-place restore (cli-contract 7.17): the backup is restored into `fresh` beside
 * the target, which is then renamed to `kept` while `fresh` takes the target's name. `restored` is
 * the name the swap-back command gives the restored database, so that nothing is lost either way.
 */
export interface InPlaceNames {
  target: string;
  fresh: string;
  kept: string;
  restored: string;
}

/** PostgreSQL's identifier limit (NAMEDATALEN - 1), in bytes: a longer name is truncated by the server, silently. */
const MAX_NAME_BYTES = 63;

/** `name` cut to leave room for `suffix` within 63 bytes, never inside a UTF-8 character. */
export function withSuffix(name: string, suffix: string): string {
  const room = MAX_NAME_BYTES - Buffer.byteLength(suffix);
  let head = '';
  for (const ch of name) {
    if (Buffer.byteLength(head + ch) > room) break;
    head += ch;
  }
  return head + suffix;
}

/** YYYYMMDDHHMMSS in UTC. */
function stamp(at: Date): string {
  return at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/**
 * `names.kept`, or where a database already has that name (a second in-place restore in the same
 * second), the first of `<kept>_2`, `<kept>_3`, ... that none has: the replaced database is never
 * lost to a rename that the server refuses after the whole restore.
 */
export function freeKeptName(names: InPlaceNames, taken: ReadonlySet<string>): string {
  const suffix = names.kept.slice(names.kept.lastIndexOf('_svc_before_'));
  for (let i = 1; ; i++) {
    const kept = i === 1 ? names.kept : withSuffix(names.target, `${suffix}_${i}`);
    if (!taken.has(kept)) return kept;
  }
}

export function inPlaceNames(target: string, at: Date): InPlaceNames {
  const ts = stamp(at);
  return {
    target,
    fresh: withSuffix(target, `_svc_restore_${ts}`),
    kept: withSuffix(target, `_svc_before_${ts}`),
    restored: withSuffix(target, `_svc_restored_${ts}`),
  };
}

/** The plan that restores into the new database beside the target: a new-database restore under another name. */
export function freshPlan(plan: RestorePlan, names: InPlaceNames): RestorePlan {
  return { ...plan, mode: 'new_database', target: { ...plan.target, database: names.fresh } };
}

/** The commands, for a person to run, that drop the kept database or swap it back (cli-contract 7.16 c, 7.17). */
export interface InPlaceCommands {
  dropPrevious: string;
  swapBack: string;
}

/** psql on the maintenance database where the swap ran, running one SQL text (one implicit transaction). */
export function inPlaceCommands(target: Target, names: InPlaceNames, maintenance: string): InPlaceCommands {
  const psqlOn = (sql: string) => shellCommand(['psql', '-X', redactedDsn({ ...target, database: maintenance }), '-c', sql]);
  const rename = (from: string, to: string) => `ALTER DATABASE ${quoteIdent(from)} RENAME TO ${quoteIdent(to)};`;
  return {
    dropPrevious: psqlOn(`DROP DATABASE ${quoteIdent(names.kept)};`),
    swapBack: psqlOn(`${rename(names.target, names.restored)} ${rename(names.kept, names.target)}`),
  };
}

/** What an in-place restore did, for the result, the --json document and the receipt. */
export interface InPlaceReport {
  /** The name the replaced database is kept under; null once --drop-previous dropped it. */
  kept: string | null;
  droppedPrevious: boolean;
  /** The other sessions svc ended at the swap (--terminate-connections). */
  terminated: Session[];
  /** What was carried over from the replaced database to the restored one (statements as run), and what was not. */
  carriedOver: string[];
  notCarriedOver: Array<{ statement: string; reason: string }>;
  /** Absent once the previous database is dropped. */
  commands?: InPlaceCommands;
}

/** A session of another client on the target, as pg_stat_activity shows it (NULL where the role may not see it). */
export interface Session {
  pid: number;
  user: string | null;
  application: string | null;
  client: string | null;
}

/** `pid 4242 (user app, application "web", client 10.0.0.5)`. */
export function describeSession(s: Session): string {
  const parts = [`user ${s.user ?? '?'}`, ...(s.application ? [`application ${JSON.stringify(s.application)}`] : []), `client ${s.client ?? '?'}`];
  return `pid ${s.pid} (${parts.join(', ')})`;
}

/** Other client sessions on the database named by `name` (a parameter, $1), as a JSON array; autovacuum is not a client and gives way to a rename. */
export const sessionsSql = (
  name: string,
) => `(SELECT coalesce(json_agg(json_build_object('pid', a.pid, 'user', a.usename, 'application', nullif(a.application_name, ''),
    'client', CASE WHEN a.client_addr IS NOT NULL THEN host(a.client_addr) WHEN a.client_port = -1 THEN 'local socket' END) ORDER BY a.pid), '[]')
   FROM pg_stat_activity a WHERE a.datname = ${name} AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend')`;

/**
 * The target's other sessions that stay: a client that has just disconnected (a session of svc's own of a
 * moment ago among them) keeps its backend, and its row in pg_stat_activity, for a few milliseconds
 * more, so sessions are looked at again for up to two seconds before any is named.
 */
export async function lastingSessions(first: Session[], look: () => Promise<Session[]>, signal: AbortSignal): Promise<Session[]> {
  let sessions = first;
  for (let i = 0; sessions.length && i < 20; i++) {
    await sleep(100, undefined, { signal });
    sessions = await look();
  }
  return sessions;
}

/** Exit 7 naming each other session: svc ends them only when told to (cli-contract 7.17). */
export function inUse(target: string, sessions: Session[], when: string): CliError {
  return new CliError(
    'target_in_use',
    `The target database "${target}" has ${sessions.length} other session(s) ${when}: ${sessions.map(describeSession).join('; ')}.`,
  );
}

/**
 * Before anything is created or downloaded (cli-contract 7.17): the target's role must be able to
 * create the new database (superuser or CREATEDB) and rename the target (its owner), and, without
 * --terminate-connections, nobody else may be connected to the target. Exit 7 naming what is missing.
 */
export async function assertCanSwap(
  plan: RestorePlan,
  env: Env,
  deps: { scrubber: SecretScrubber; signal: AbortSignal; info: (m: string) => void },
): Promise<void> {
  const { target } = plan;
  const sql = `SELECT json_build_object('superuser', r.rolsuper, 'createdb', r.rolcreatedb, 'owns', pg_has_role(current_user, d.datdba, 'USAGE'),
    'owner', pg_get_userbyid(d.datdba), 'sessions', ${sessionsSql('$1')}) AS facts
    FROM pg_database d, pg_roles r WHERE d.datname = $1 AND r.rolname = current_user`;
  // One session for the facts and every look at the sessions, on the maintenance database: a session of svc's own on
  // the target would be one more "other session" to a second in-place run looking at the same time.
  const onServer = (fn: (client: pg.Client) => Promise<void>) =>
    onMaintenanceDb((database) => onEnv({ env, database, scrubber: deps.scrubber, signal: deps.signal, catalogOnly: true }, fn));
  await onServer(async (client) => {
    const facts = (await client.query<{ facts: Facts }>(sql, [target.database])).rows[0]!.facts;
    permitted(target, facts);
    const look = async () => (await client.query<{ s: Session[] }>(`SELECT ${sessionsSql('$1')} AS s`, [target.database])).rows[0]!.s;
    const sessions = await lastingSessions(facts.sessions, look, deps.signal);
    if (sessions.length && !plan.terminateConnections)
      throw inUse(target.database, sessions, 'now; svc swaps the restored database in only once they have ended');
    if (sessions.length)
      deps.info(
        `${sessions.length} other session(s) on "${target.database}" will be ended at the swap (--terminate-connections): ${sessions.map(describeSession).join('; ')}.`,
      );
  }).catch((err: unknown) => {
    throw err instanceof PgError ? new LocalToolError(`Could not read the privileges and sessions of ${redactedDsn(target)}: ${err.reason}`) : err;
  });
}

interface Facts {
  superuser: boolean;
  createdb: boolean;
  owns: boolean;
  owner: string;
  sessions: Session[];
}

/** Exit 7 where the target's role may not create the new database or rename the target. */
function permitted(target: RestorePlan['target'], facts: Facts): void {
  const role = `The role "${target.user}"`;
  if (!facts.superuser && !facts.createdb) {
    throw new CliError(
      'in_place_not_permitted',
      `An in-place restore creates a new database beside "${target.database}" and swaps it in, which needs the CREATEDB privilege: ${role} has neither CREATEDB nor superuser. Nothing was downloaded.`,
      { hint: `Grant it (ALTER ROLE ${quoteIdent(target.user)} CREATEDB, as a superuser), or restore into a new database without --in-place.` },
    );
  }
  if (!facts.owns) {
    throw new CliError(
      'in_place_not_permitted',
      `An in-place restore renames "${target.database}", which only its owner may do: ${role} is not "${facts.owner}" nor a member of it. Nothing was downloaded.`,
      { hint: `Run it as "${facts.owner}", or grant that role (GRANT ${quoteIdent(facts.owner)} TO ${quoteIdent(target.user)}).` },
    );
  }
}

/** The one line of the confirmation prompt that says what happens (cli-contract 7.17). */
export function replacesLine(plan: RestorePlan, names: InPlaceNames): string {
  const kept = plan.dropPrevious ? `is dropped once the swap succeeded (--drop-previous)` : `is kept as the database "${names.kept}"`;
  return `In-place restore: replaces ${redactedDsn(plan.target)}; its current state ${kept}.`;
}
