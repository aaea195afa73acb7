import { LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { entriesOf, type ArchiveScript } from './archive-script.js';
import type { NotRestored } from '../load/not-restored.js';
import { PgError } from '../../pg/errors.js';
import { psql } from '../../pg/psql.js';
import { quoteLiteral } from '../../pg/quote.js';

type Env = Record<string, string | undefined>;

/** A routine whose EXECUTE the archive takes from PUBLIC: [schema, name, identity arguments]. */
type Routine = [schema: string, name: string, args: string];

/**
 * The routines whose ACL entry revokes PUBLIC's EXECUTE (pg_dump writes `REVOKE ALL ON FUNCTION
 * <signature> FROM PUBLIC;`). Named by the entry's header ("FUNCTION f(a integer)", schema), whose
 * arguments are pg_get_function_identity_arguments() as pg_dump read them.
 */
export function publicRevokes(script: ArchiveScript): Routine[] {
  const out: Routine[] = [];
  for (const e of entriesOf(script, 'ACL')) {
    const m = /^(?:FUNCTION|PROCEDURE) ([^(]+)\((.*)\)$/.exec(e.name);
    if (m && e.sql.split('\n').some((line) => /^REVOKE ALL ON (?:FUNCTION|PROCEDURE) .* FROM PUBLIC;$/.test(line))) out.push([e.schema, m[1]!, m[2]!]);
  }
  return out;
}

/**
 * Each REVOKE is built by the server from its own catalog (`oid::regprocedure`), never from the
 * archive's text, which only says which routine; \gexec runs them. Then the routines it did not find.
 */
const wanted = (routines: string) =>
  `SELECT r.v->>0 AS nspname, r.v->>1 AS proname, r.v->>2 AS args, r.i FROM json_array_elements(${quoteLiteral(routines)}::json) WITH ORDINALITY AS r(v, i)`;
const MATCH =
  'pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = w.nspname AND p.proname = w.proname AND pg_get_function_identity_arguments(p.oid) = w.args';
const revokeSql = (routines: string) => {
  const w = wanted(routines);
  return `SELECT format('REVOKE ALL ON ROUTINE %s FROM PUBLIC', f.oid::regprocedure) FROM (${w}) w CROSS JOIN LATERAL (SELECT p.oid FROM ${MATCH}) f \\gexec
SELECT coalesce(json_agg(w.i), '[]') FROM (${w}) w WHERE NOT EXISTS (SELECT 1 FROM ${MATCH});`;
};

/**
 * The archive's `REVOKE ... FROM PUBLIC` on routines, applied after the restore although privileges
 * are not (--no-privileges): it only restricts, and without it a function its owner kept from
 * everyone becomes executable by everyone (cli-contract 7.18). Run as the role that restored the
 * database, which owns the routines. Returns each routine it could not find, to be listed.
 */
export async function applyPublicRevokes(
  script: ArchiveScript,
  database: string,
  env: Env,
  io: { scrubber: SecretScrubber; signal: AbortSignal; client?: string },
): Promise<NotRestored[]> {
  const routines = publicRevokes(script);
  if (!routines.length) return [];
  try {
    const out = await psql(revokeSql(JSON.stringify(routines)), { env, database, ...io });
    const missed = JSON.parse(out.split('\n').at(-1)!) as number[];
    return missed.map((i) => {
      const [schema, name, args] = routines[i - 1]!;
      return {
        type: 'ACL',
        name: `FUNCTION ${schema}.${name}(${args})`,
        reason: 'REVOKE ALL ... FROM PUBLIC not applied: the routine is not in the restored database',
      };
    });
  } catch (err) {
    if (err instanceof PgError) throw new LocalToolError(`Could not take EXECUTE from PUBLIC on the archive's routines that had it revoked: ${err.reason}`);
    throw err;
  }
}
