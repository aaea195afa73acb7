import { LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { rolesNamed, type ArchiveRole } from '../archive/archive-roles.js';
import { entriesOf, type ArchiveScript } from '../archive/archive-script.js';
import { extensionComments, type ArchiveComment } from '../archive/extension-comments.js';
import { archiveSchemas, leftOutIds, type NotRestored } from './not-restored.js';
import { PgError } from '../../pg/errors.js';
import { quoteIdent, readIdent, serverText } from '../../pg/quote.js';
import { onEnv } from '../../pg/target-session.js';
import { redactedDsn, type Target } from '../target/target.js';
import { onMaintenanceDb } from '../target/target-database.js';
import type { Toc } from '../archive/toc.js';

type Env = Record<string, string | undefined>;

/** A throwaway role a drill restores as: LOGIN, no superuser, no CREATEDB, no CREATEROLE (cli-contract 9.9). */
export interface OwnerRole {
  name: string;
  /** Random; in memory, and in a child's PGPASSFILE while it runs. */
  password: string;
}

/**
 * How a restore runs with least privilege, where svc creates the role it restores as (a drill): the
 * target's own role (a superuser) only creates the database, the extensions and the placeholder
 * roles; pg_restore, ANALYZE and the object check run as `owner`.
 */
export interface RestoreRoles {
  owner: OwnerRole;
  /** Creates, NOLOGIN, those of `roles` the server lacks; returns the names it created now or earlier in this run. */
  placeholders: (roles: string[]) => Promise<string[]>;
  /** Told what was set up ("created NOLOGIN placeholder roles ..."), for the drill's progress lines. */
  say?: (text: string) => void;
}

/** The target, reached as the owner role. */
export function asOwner(target: Target, owner: OwnerRole): Target {
  const params = { ...target.params };
  if (params.PGUSER !== undefined) params.PGUSER = owner.name;
  return { ...target, user: owner.name, password: owner.password, params };
}

/** An EXTENSION entry as pg_dump writes it, read strictly: `CREATE EXTENSION IF NOT EXISTS <ident> WITH SCHEMA <ident>;`. */
export interface ArchiveExtension {
  name: string;
  schema: string;
}

const PREFIX = 'CREATE EXTENSION IF NOT EXISTS ';
const MIDDLE = ' WITH SCHEMA ';

/** The statement exactly: the prefix, an identifier, " WITH SCHEMA ", an identifier, ";". */
function readExtension(sql: string): ArchiveExtension | undefined {
  if (!sql.startsWith(PREFIX)) return undefined;
  const name = readIdent(sql.slice(PREFIX.length));
  const rest = name && sql.slice(PREFIX.length + name.length);
  if (!name || !rest?.startsWith(MIDDLE)) return undefined;
  const schema = readIdent(rest.slice(MIDDLE.length));
  return schema && rest.slice(MIDDLE.length + schema.length) === ';' ? { name: name.name, schema: schema.name } : undefined;
}

export function archiveExtensions(script: ArchiveScript): ArchiveExtension[] {
  return entriesOf(script, 'EXTENSION').map((e) => {
    const found = readExtension(e.sql);
    if (!found) {
      throw new LocalToolError(
        `The archive's EXTENSION entry ${JSON.stringify(e.name)} is not a CREATE EXTENSION statement as pg_dump writes it; svc does not run it. Nothing was restored.`,
        'Check where the backup came from: pg_dump writes every extension as CREATE EXTENSION IF NOT EXISTS <name> WITH SCHEMA <schema>.',
      );
    }
    return found;
  });
}

/** The roles of `roles` the server has, in one query (names bound as one parameter, never spliced). */
export async function existingRoles(roles: string[], env: Env, database: string, scrubber: SecretScrubber, signal: AbortSignal): Promise<Set<string>> {
  if (!roles.length) return new Set();
  const sql = 'SELECT rolname FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) ANY ($1::text[])';
  const found = await onEnv({ env, database, scrubber, signal }, (client) => client.query<{ rolname: string }>(sql, [roles]));
  return new Set(found.rows.map((r) => r.rolname));
}

/** "authenticated (policy p_read on app.accounts), anon (...)". */
function named(roles: ArchiveRole[]): string {
  return roles.map((r) => `${r.name} (${r.neededBy.slice(0, 3).join(', ')}${r.neededBy.length > 3 ? ', ...' : ''})`).join(', ');
}

/**
 * Before anything is created (cli-contract 7.12): every role the archive names outside ownership and
 * privileges must exist on the target, else exit 11 naming each and what needs it.
 */
export async function assertRolesExist(
  script: ArchiveScript,
  target: Target,
  env: Env,
  targetExists: boolean,
  scrubber: SecretScrubber,
  signal: AbortSignal,
): Promise<void> {
  const roles = rolesNamed(script);
  if (!roles.length) return;
  const read = (database: string) =>
    existingRoles(
      roles.map((r) => r.name),
      env,
      database,
      scrubber,
      signal,
    );
  const have = await (targetExists ? read(target.database) : onMaintenanceDb(read)).catch((err: unknown) => {
    throw err instanceof PgError ? new LocalToolError(`Could not read the roles of ${redactedDsn(target)}: ${err.reason}`) : err;
  });
  const missing = roles.filter((r) => !have.has(r.name));
  if (!missing.length) return;
  const create = missing.slice(0, 10).map((r) => `CREATE ROLE ${/^[a-z_][a-z0-9_]*$/.test(r.name) ? r.name : quoteIdent(r.name)} NOLOGIN;`);
  const example = `${create.join(' ')}${missing.length > 10 ? ' ...' : ''}`;
  throw new LocalToolError(
    `The archive names ${missing.length === 1 ? 'a role' : 'roles'} that ${redactedDsn(target)} does not have: ${named(missing)}. Nothing was restored.`,
    `Create ${missing.length === 1 ? 'it' : 'them'} on the target first (${example}), or restore into a server that has ${missing.length === 1 ? 'it' : 'them'}.`,
  );
}

/** cli-contract 7.14, as pg_restore's documentation warns. */
export function superuserWarning(target: Target): string {
  return `The role "${target.user}" is a superuser on ${redactedDsn(target)}: code in the backup (functions its constraints, defaults, indexes and triggers call) will run with superuser rights on that server. Restore as a role that is not a superuser where you do not trust everyone who could write to the source database.`;
}

export interface Prepared {
  /** Dump ids pg_restore leaves out (a -L list holds the others). */
  leftOut: Set<number>;
  notRestored: NotRestored[];
  placeholderRoles: string[];
  /** "named by the archive's policies": what needs the placeholders, for the line that says so. */
  placeholderReason: string;
}

/**
 * The owner's rights on extension configuration tables (pg_extension.extconfig): pg_dump writes their
 * rows as TABLE DATA with no TABLE entry. USAGE only on a schema the owner cannot use yet: a GRANT on
 * pg_catalog, which everyone may use, would be left in a kept drill database for nothing.
 */
const GRANTS = `
  FOR r IN SELECT DISTINCT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
           WHERE NOT has_schema_privilege(owner, n.oid, 'USAGE') LOOP
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', r.nspname, owner);
  END LOOP;
  FOR r IN SELECT c.oid::regclass AS rel, c.relkind, n.nspname, has_schema_privilege(owner, n.oid, 'USAGE') AS usable
           FROM pg_extension e CROSS JOIN LATERAL unnest(e.extconfig) AS cfg(relid)
           JOIN pg_class c ON c.oid = cfg.relid JOIN pg_namespace n ON n.oid = c.relnamespace LOOP
    IF NOT r.usable THEN
      EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', r.nspname, owner);
    END IF;
    IF r.relkind = 'S' THEN
      EXECUTE format('GRANT USAGE, SELECT, UPDATE ON SEQUENCE %s TO %I', r.rel, owner);
    ELSE
      EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES ON TABLE %s TO %I', r.rel, owner);
    END IF;
  END LOOP;`;

/**
 * The superuser's set-up as one DO block (one transaction: the first error stops the rest), every
 * name and comment from the archive made by the server from its bytes in `encoding` (serverText),
 * so it reaches the database as the archive wrote it whatever its encoding.
 */
function setUpSql(owner: string, encoding: string, schemas: string[], extensions: ArchiveExtension[], comments: ArchiveComment[]): string {
  const text = (value: string) => serverText(value, encoding);
  return `DO $svc$
DECLARE r record; owner text := ${text(owner)};
BEGIN
${[
  ...schemas.map((s) => `  EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', ${text(s)}, owner);`),
  ...extensions.map((e) => `  EXECUTE format('CREATE EXTENSION IF NOT EXISTS %I WITH SCHEMA %I', ${text(e.name)}, ${text(e.schema)});`),
  GRANTS,
  ...comments.map((c) => `  EXECUTE format('COMMENT ON EXTENSION %I IS %L', ${text(c.extension)}, ${text(c.comment)});`),
].join('\n')}
END $svc$`;
}

/**
 * What the target's superuser does in the new database before pg_restore runs as the owner, in
 * statements svc builds itself (never the archive's text, which anyone who controls the backup can
 * write): the schemas the extensions live in (owned by the owner), the extensions, the owner's
 * rights on their configuration tables, the extensions' comments, and the placeholder roles. Returns
 * what pg_restore leaves out because it is made here; what the server refuses the owner is found later
 * (refusals.ts), entry by entry.
 */
export async function prepareAsSuperuser(
  script: ArchiveScript,
  toc: Toc,
  roles: RestoreRoles,
  target: Target,
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
): Promise<Prepared> {
  const extensions = archiveExtensions(script);
  const inArchive = archiveSchemas(script);
  const schemas = [...new Set(extensions.map((e) => e.schema).filter((s) => inArchive.has(s)))];
  // The extensions' comments too: the owner may not comment on what it does not own, and a comment runs no code.
  const comments = extensionComments(script);
  try {
    // Without an extension in the archive there is nothing to grant: template0's only one, plpgsql, has no configuration table.
    if (extensions.length || comments.comments.length) {
      const sql = setUpSql(roles.owner.name, toc.encoding.client, schemas, extensions, comments.comments);
      await onEnv({ env, database: target.database, scrubber, signal }, (client) => client.query(sql));
    }
  } catch (err) {
    if (err instanceof PgError)
      throw new LocalToolError(
        `The scratch server's superuser could not create the archive's extensions: ${err.reason}`,
        'The extensions must be installed on the scratch server (pg_available_extensions).',
      );
    throw err;
  }
  const named = rolesNamed(script);
  const placeholderRoles = await roles.placeholders(named.map((r) => r.name));
  const kinds = [...new Set(named.filter((r) => placeholderRoles.includes(r.name)).flatMap((r) => r.neededBy.map((n) => n.split(' ')[0]!)))];
  return {
    leftOut: leftOutIds(toc, schemas),
    notRestored: comments.notRestored,
    placeholderRoles,
    placeholderReason: `named by the archive's ${kinds.map((k) => (k === 'policy' ? 'policies' : k === 'user' ? 'user mappings' : `${k}s`)).join(' and ')}`,
  };
}

/** What a least-privilege restore runs with: the owner's environment, and what is not restored (the server's refusals are added after pg_restore). */
export interface Restricted extends Prepared {
  /** The children's environment as the owner role (its password in a PGPASSFILE of the run's scope). */
  env: Env;
}

/**
 * The steps between CREATE DATABASE and pg_restore of a least-privilege restore (cli-contract 9.9):
 * the superuser's set-up in the new database, then the owner's environment.
 */
export async function restrict(
  roles: RestoreRoles,
  script: ArchiveScript,
  toc: Toc,
  target: Target,
  adminEnv: Env,
  io: { pgEnv: (target: Target) => Promise<Env>; scrubber: SecretScrubber; signal: AbortSignal },
): Promise<Restricted> {
  const prepared = await prepareAsSuperuser(script, toc, roles, target, adminEnv, io.scrubber, io.signal);
  if (prepared.placeholderRoles.length) roles.say?.(`created NOLOGIN placeholder roles ${prepared.placeholderRoles.join(', ')}, ${prepared.placeholderReason}`);
  return { ...prepared, env: await io.pgEnv(asOwner(target, roles.owner)) };
}
