import { randomBytes } from 'node:crypto';
import { checkStatementTimeout } from '../contract-timers.js';
import { drillMarker } from './marker.js';
import { quoteIdent as ident, quoteLiteral as literal } from '../pg/quote.js';
import { sessionConfig, withSession, type SessionConfig } from '../pg/session.js';
import type { Target } from '../restore/target/target.js';
import { scramVerifier } from './scram.js';

type Env = Record<string, string | undefined>;

/** The settings every SQL check runs under (cli-contract 9, step 4). */
export const checkSettings = () => ({ default_transaction_read_only: 'on', statement_timeout: checkStatementTimeout() });

/**
 * Where the SQL checks of a run connect (cli-contract 9, v4 step 10): a throwaway role of this run
 * that can only read, made on first use by the scratch server's administrative role (the cluster's
 * superuser, or the --scratch role where it may create roles); else, on an operator's server where
 * the given role may not create roles, that role with the settings as connection options.
 */
export interface CheckAccess {
  /** A fresh connection's settings for a check in `database` (a restored scratch database). */
  session(database: string): Promise<SessionConfig>;
  /** Drops the role (with `dropRole`: on an operator's server, or a kept cluster); never throws. */
  dispose(dropRole: boolean): Promise<void>;
}

interface Options {
  /** The administrative connection: its user creates the role; its database is where it connects to do so. */
  admin: Target;
  env: Env;
  signal: AbortSignal;
  /** Said once on stderr where the checks run as the given role. */
  note: (text: string) => void;
  /** How the administrative target is named in messages (a redacted DSN). */
  where: string;
}

interface Made {
  role: string;
  password: string;
  /** Whether pg_read_all_data was granted; else each database gets SELECT and USAGE grants. */
  readAll: boolean;
}

async function makeRole(opts: Options, role: string, superuser: boolean, version: number): Promise<Made> {
  const password = randomBytes(24).toString('base64url');
  const config = sessionConfig(opts.admin, opts.env, opts.admin.user, opts.admin.password, opts.admin.database);
  return withSession(config, opts.signal, async (client) => {
    // Only a superuser may give BYPASSRLS; without it a check sees what row security shows its role.
    const attributes = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION INHERIT ${superuser ? 'BYPASSRLS' : ''}`;
    await client.query(`CREATE ROLE ${ident(role)} ${attributes} PASSWORD ${literal(scramVerifier(password))}`);
    try {
      await client.query(`COMMENT ON ROLE ${ident(role)} IS ${literal(drillMarker())}`);
      for (const [name, value] of Object.entries(checkSettings())) await client.query(`ALTER ROLE ${ident(role)} SET ${name} = ${literal(value)}`);
      let readAll = false;
      if (version >= 140000) {
        // PostgreSQL 16 lets a CREATEROLE role grant only roles it administers: then per database, as before 14.
        readAll = await client.query(`GRANT pg_read_all_data TO ${ident(role)}`).then(
          () => true,
          () => false,
        );
      }
      return { role, password, readAll };
    } catch (err) {
      await client.query(`DROP ROLE IF EXISTS ${ident(role)}`).catch(() => undefined);
      throw err;
    }
  });
}

/** Read access to one database for a role without pg_read_all_data: USAGE on each schema, SELECT on its tables and sequences. */
const GRANT_READ = (role: string) => `DO $svc$
DECLARE s name;
BEGIN
  FOR s IN SELECT nspname FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\\_toast%' AND nspname NOT LIKE 'pg\\_temp\\_%' LOOP
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, ${literal(role)});
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO %I', s, ${literal(role)});
    EXECUTE format('GRANT SELECT ON ALL SEQUENCES IN SCHEMA %I TO %I', s, ${literal(role)});
  END LOOP;
END $svc$`;

export function checkAccess(opts: Options): CheckAccess {
  // In a restored database the archive's own search_path applies to every session: the administrative role, which
  // may be a superuser, resolves names in pg_catalog only, so no operator or function the archive planted runs as it.
  const adminConfig = (database: string): SessionConfig => ({
    ...sessionConfig(opts.admin, opts.env, opts.admin.user, opts.admin.password, database),
    ...(database === opts.admin.database ? {} : { options: '-c search_path=pg_catalog' }),
  });
  let made: Promise<Made | undefined> | undefined;
  // Named before it is created: a signal during its creation must not leave it behind.
  let named: string | undefined;
  const granted = new Map<string, Promise<void>>();

  const prepare = (): Promise<Made | undefined> =>
    (made ??= withSession(adminConfig(opts.admin.database), opts.signal, async (client) => {
      const r = await client.query<{ rolsuper: boolean; rolcreaterole: boolean; version: number }>(
        "SELECT rolsuper, rolcreaterole, current_setting('server_version_num')::int AS version FROM pg_roles WHERE rolname = current_user",
      );
      return r.rows[0]!;
    }).then((facts) => {
      if (facts.rolsuper || facts.rolcreaterole) {
        named = `svc_drill_check_${randomBytes(4).toString('hex')}`;
        return makeRole(opts, named, facts.rolsuper, facts.version);
      }
      opts.note(
        `The role "${opts.admin.user}" may not create roles on ${opts.where}: the SQL checks run as that role, in read-only transactions with a 60 s statement timeout set for each connection (grant it CREATEROLE for a throwaway role that can only read).`,
      );
      return undefined;
    }));

  return {
    async session(database) {
      const role = await prepare();
      // The DSN's own options (a search_path, say) apply to the checks too; the check settings come last, so they win.
      const options = [opts.admin.params.PGOPTIONS ?? opts.env.PGOPTIONS, ...Object.entries(checkSettings()).map(([k, v]) => `-c ${k}=${v}`)]
        .filter(Boolean)
        .join(' ');
      if (!role) return { ...adminConfig(database), options };
      if (!role.readAll) {
        let grant = granted.get(database);
        if (!grant) {
          grant = withSession(adminConfig(database), opts.signal, async (client) => void (await client.query(GRANT_READ(role.role))));
          granted.set(database, grant);
        }
        await grant;
      }
      return { ...sessionConfig(opts.admin, opts.env, role.role, role.password, database), options };
    },

    async dispose(dropRole) {
      await made?.catch(() => undefined);
      const role = named;
      if (!role || !dropRole) return;
      const signal = new AbortController().signal;
      // Grants in a kept database would keep the role from being dropped.
      for (const database of granted.keys()) {
        await withSession(adminConfig(database), signal, (c) => c.query(`DROP OWNED BY ${ident(role)}`)).catch(() => undefined);
      }
      try {
        await withSession(adminConfig(opts.admin.database), signal, (c) => c.query(`DROP ROLE IF EXISTS ${ident(role)}`));
      } catch (err) {
        opts.note(`Could not drop the SQL checks' role ${role} on ${opts.where}: ${(err as Error).message}. Drop it with: DROP ROLE ${ident(role)};`);
      }
    },
  };
}
