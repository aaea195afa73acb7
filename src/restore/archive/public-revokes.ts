import { LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { entriesOf, type ArchiveScript } from './archive-script.js';
import type { NotRestored } from '../load/not-restored.js';
import { PgError } from '../../pg/errors.js';
import { hexOf, readIdent } from '../../pg/quote.js';
import { onEnv } from '../../pg/target-session.js';

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
    const m = /^(?:FUNCTION|PROCEDURE) (.*)$/.exec(e.name);
    // The name as pg_dump's fmtId wrote it: quoted where it must be ("sécret", "MyFunc").
    const name = m && readIdent(m[1]!);
    const args = name && /^\((.*)\)$/.exec(m[1]!.slice(name.length));
    if (name && args && e.sql.split('\n').some((line) => /^REVOKE ALL ON (?:FUNCTION|PROCEDURE) .* FROM PUBLIC;$/.test(line)))
      out.push([e.schema, name.name, args[1]!]);
  }
  return out;
}

/**
 * Each routine the archive names, found by the server: the names come as hex of their bytes in the
 * archive's session encoding ($1, a JSON array; $2 the encoding), converted on the server, so they
 * match whatever the database's encoding. The oid where it is found, for each entry's index.
 */
const FIND_SQL = `
SELECT w.i::int AS i, f.oid::text AS oid
FROM (SELECT pg_catalog.convert_from(pg_catalog.decode(r.v->>0, 'hex'), $2) AS nspname, pg_catalog.convert_from(pg_catalog.decode(r.v->>1, 'hex'), $2) AS proname,
             pg_catalog.convert_from(pg_catalog.decode(r.v->>2, 'hex'), $2) AS args, r.i
      FROM pg_catalog.json_array_elements($1::json) WITH ORDINALITY AS r(v, i)) w
LEFT JOIN LATERAL (SELECT p.oid FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                   WHERE n.nspname = w.nspname AND p.proname = w.proname AND pg_get_function_identity_arguments(p.oid) = w.args) f ON true`;

/** Each REVOKE is built by the server from its own catalog (`oid::regprocedure`), never from the archive's text, which only says which routine. */
const revokeSql = (oids: string[]) => `DO $svc$
DECLARE f regprocedure;
BEGIN
  FOREACH f IN ARRAY '{${oids.join(',')}}'::oid[]::regprocedure[] LOOP
    EXECUTE format('REVOKE ALL ON ROUTINE %s FROM PUBLIC', f);
  END LOOP;
END $svc$`;

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
  const client = io.client ?? 'UTF8';
  try {
    const found = await onEnv({ env, database, scrubber: io.scrubber, signal: io.signal }, async (session) => {
      const rows = (
        await session.query<{ i: number; oid: string | null }>(FIND_SQL, [JSON.stringify(routines.map((r) => r.map((s) => hexOf(s, client)))), client])
      ).rows;
      const oids = rows.flatMap((r) => (r.oid ? [r.oid] : []));
      if (oids.length) await session.query(revokeSql(oids));
      return rows;
    });
    // One row per routine: (schema, name, identity arguments) names at most one.
    return found
      .filter((r) => !r.oid)
      .map(({ i }) => {
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
