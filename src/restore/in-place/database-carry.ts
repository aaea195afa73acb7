import type { SecretScrubber } from '../../secrets.js';
import { applyDatabaseSettings, type DatabaseSetting, type DatabaseSettingsReport } from '../archive/database-settings.js';
import { onEnv } from '../../pg/target-session.js';
import { quoteIdent, quoteLiteral } from '../../pg/quote.js';

type Env = Record<string, string | undefined>;

/** The replaced database's own properties, which are the operator's and not the backup's (cli-contract 7.17). */
interface DatabaseProperties {
  owner: string;
  /** aclexplode(datacl); null where datacl is NULL (the default privileges). */
  acl: Array<{ grantee: string | null; privilege: string; grantable: boolean }> | null;
  /** pg_db_role_setting of the database: role null for ALTER DATABASE ... SET. */
  settings: Array<{ role: string | null; config: string[] }>;
  comment: string | null;
  connlimit: number;
}

const PROPERTIES_SQL = `SELECT json_build_object(
  'owner', pg_get_userbyid(d.datdba),
  'acl', CASE WHEN d.datacl IS NOT NULL THEN (SELECT coalesce(json_agg(json_build_object(
           'grantee', CASE WHEN a.grantee = 0 THEN NULL ELSE pg_get_userbyid(a.grantee) END, 'privilege', a.privilege_type, 'grantable', a.is_grantable)), '[]')
         FROM aclexplode(d.datacl) a) END,
  'settings', (SELECT coalesce(json_agg(json_build_object('role', CASE WHEN s.setrole = 0 THEN NULL ELSE pg_get_userbyid(s.setrole) END, 'config', s.setconfig)), '[]')
               FROM pg_db_role_setting s WHERE s.setdatabase = d.oid),
  'comment', shobj_description(d.oid, 'pg_database'),
  'connlimit', d.datconnlimit) AS props
FROM pg_database d WHERE d.datname = $1`;

/** Settings whose value is a list of quoted names, which pg_dump too splits before re-issuing (variable_is_guc_list_quote). */
const LIST_QUOTE = new Set([
  'local_preload_libraries',
  'search_path',
  'session_preload_libraries',
  'shared_preload_libraries',
  'temp_tablespaces',
  'unix_socket_directories',
]);

/** A list setting's stored text ("app, \"Billing\"") as its elements, as SplitGUCList reads it. */
export function splitGucList(value: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    while (value[i] === ' ' || value[i] === '\t') i++;
    if (i >= value.length) return out;
    let item = '';
    if (value[i] === '"') {
      for (i++; i < value.length; i++) {
        if (value[i] === '"' && value[i + 1] === '"') item += value[i++];
        else if (value[i] === '"') break;
        else item += value[i];
      }
      i++;
    } else {
      while (i < value.length && value[i] !== ',' && value[i] !== ' ') item += value[i++];
    }
    out.push(item);
    while (value[i] === ' ') i++;
    if (value[i] === ',') i++;
  }
}

/** `name=value` of setconfig as the clause svc re-issues: `SET "name" TO 'v1', 'v2'`. */
export function setClause(entry: string): string {
  const eq = entry.indexOf('=');
  const name = entry.slice(0, eq);
  const value = entry.slice(eq + 1);
  const values = LIST_QUOTE.has(name.toLowerCase()) ? splitGucList(value) : [value];
  return `SET ${quoteIdent(name)} TO ${values.map(quoteLiteral).join(', ')}`;
}

/**
 * The statements that give `db` the properties read; the privileges after the owner, so they are
 * granted as the owner's. Without `settings` (--database-settings: the archive's apply instead), the
 * settings and comment are left out.
 */
function carryStatements(p: DatabaseProperties, settings: boolean): DatabaseSetting[] {
  const on = (build: (db: string) => string): DatabaseSetting => ({ kind: 'database', sql: build });
  const statements: DatabaseSetting[] = [on((db) => `ALTER DATABASE ${quoteIdent(db)} OWNER TO ${quoteIdent(p.owner)};`)];
  for (const { role, config } of settings ? p.settings : []) {
    for (const entry of config) {
      const clause = setClause(entry);
      statements.push(
        role === null
          ? on((db) => `ALTER DATABASE ${quoteIdent(db)} ${clause};`)
          : { kind: 'role', role, sql: (db) => `ALTER ROLE ${quoteIdent(role)} IN DATABASE ${quoteIdent(db)} ${clause};` },
      );
    }
  }
  const comment = p.comment;
  if (settings && comment !== null) statements.push({ kind: 'comment', sql: (db) => `COMMENT ON DATABASE ${quoteIdent(db)} IS ${quoteLiteral(comment)};` });
  if (p.connlimit !== -1) statements.push(on((db) => `ALTER DATABASE ${quoteIdent(db)} CONNECTION LIMIT ${p.connlimit};`));
  if (p.acl) {
    // The new database starts with the default privileges: clear them, then grant exactly the old list.
    statements.push(on((db) => `REVOKE ALL ON DATABASE ${quoteIdent(db)} FROM PUBLIC, ${quoteIdent(p.owner)};`));
    for (const a of p.acl) {
      const to = a.grantee === null ? 'PUBLIC' : quoteIdent(a.grantee);
      statements.push(on((db) => `GRANT ${a.privilege} ON DATABASE ${quoteIdent(db)} TO ${to}${a.grantable ? ' WITH GRANT OPTION' : ''};`));
    }
  }
  return statements;
}

/**
 * Gives the restored database `to` the owner, privileges (GRANT CONNECT ...), settings (ALTER
 * DATABASE / ALTER ROLE ... IN DATABASE ... SET), comment and connection limit of the database
 * `from` it replaces, each statement on its own from the maintenance database: one the server
 * refuses is listed with its reason, not fatal.
 */
export async function carryOver(
  from: string,
  to: string,
  maintenance: string,
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
  settings: boolean,
): Promise<DatabaseSettingsReport> {
  const found = await onEnv({ env, database: maintenance, scrubber, signal }, (client) => client.query<{ props: DatabaseProperties }>(PROPERTIES_SQL, [from]));
  const props = found.rows[0]!.props;
  return applyDatabaseSettings({ settings: carryStatements(props, settings), skipped: [] }, to, env, scrubber, signal, maintenance);
}
