import { randomBytes } from 'node:crypto';
import { LocalToolError } from '../errors.js';
import { PgError } from '../pg/errors.js';
import { quoteIdent, quoteLiteral } from '../pg/quote.js';
import { queryTarget } from '../pg/target-session.js';
import type { Target } from '../restore/target/target.js';
import type { OwnerRole, RestoreRoles } from '../restore/load/unprivileged.js';
import type { SecretScrubber } from '../secrets.js';
import { drillMarker } from './marker.js';
import { scramVerifier } from './scram.js';

type Env = Record<string, string | undefined>;

/**
 * The roles a drill creates on its scratch server (cli-contract 9.9), through the connection of a
 * role that may create roles (the scratch cluster's superuser, or a --scratch role with CREATEROLE):
 * one owner per scratch database, and the placeholder roles the archives name that the server lacks.
 * Every role is marked with the drill's marker (9.12), and drop() removes exactly these.
 */
export class DrillRoles {
  readonly #created: string[] = [];
  readonly #placeholders = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    /** The administrative connection: its role creates the roles, in its database. */
    readonly server: Target,
    readonly env: Env,
    readonly scrubber: SecretScrubber,
    readonly signal: AbortSignal,
    /** A creator that is not a superuser must be a member of the owner to create its database (CREATE DATABASE ... OWNER). */
    readonly joinOwner = false,
  ) {}

  #run<R extends Record<string, unknown>>(sql: string, params?: unknown[], signal = this.signal): Promise<R[]> {
    return queryTarget<R>(this.server, { env: this.env, database: this.server.database, scrubber: this.scrubber, signal }, sql, params);
  }

  /** A new owner role for one scratch database: LOGIN, random password, no other right, no membership. */
  async owner(): Promise<OwnerRole> {
    const owner = { name: `svc_drill_owner_${randomBytes(4).toString('hex')}`, password: randomBytes(24).toString('base64url') };
    this.scrubber.add(owner.password);
    const role = quoteIdent(owner.name);
    // BYPASSRLS (which only a superuser may give): the drill's data check and rows_match must see every
    // row the archive holds, also in a table under FORCE ROW LEVEL SECURITY, whose policies bind its owner
    // too. It reaches no database the role cannot read anyway; it runs no code and grants no table.
    const rls = this.joinOwner ? 'NOBYPASSRLS' : 'BYPASSRLS';
    try {
      await this.#run(
        `CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION ${rls} PASSWORD ${quoteLiteral(scramVerifier(owner.password))};
COMMENT ON ROLE ${role} IS ${quoteLiteral(drillMarker())};${this.joinOwner ? `\nGRANT ${role} TO CURRENT_USER;` : ''}`,
      );
    } catch (err) {
      throw err instanceof PgError ? new LocalToolError(`Could not create the drill's owner role on the scratch server: ${err.reason}`) : err;
    }
    this.#created.push(owner.name);
    return owner;
  }

  /** Creates, NOLOGIN and without rights, those of `names` the server lacks; one caller at a time (databases drilled in parallel share them). */
  placeholders(names: string[]): Promise<string[]> {
    const next = this.#queue.then(async () => {
      if (!names.length) return [];
      const found = await this.#run<{ rolname: string }>('SELECT rolname FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) ANY ($1::text[])', [
        names,
      ]);
      const have = new Set(found.map((r) => r.rolname));
      const missing = names.filter((n) => !have.has(n));
      for (const name of missing) {
        try {
          await this.#run(
            `CREATE ROLE ${quoteIdent(name)} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;\nCOMMENT ON ROLE ${quoteIdent(name)} IS ${quoteLiteral(drillMarker())};`,
          );
        } catch (err) {
          throw err instanceof PgError ? new LocalToolError(`Could not create the placeholder role "${name}" on the scratch server: ${err.reason}`) : err;
        }
        this.#created.push(name);
        this.#placeholders.add(name);
      }
      return names.filter((n) => this.#placeholders.has(n));
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Both hooks a restore needs, with a fresh owner. */
  async forDatabase(): Promise<RestoreRoles> {
    return { owner: await this.owner(), placeholders: (names) => this.placeholders(names) };
  }

  /** Drops every role this run created (their databases are dropped by now); the ones that could not be dropped, each with why. */
  async drop(): Promise<string[]> {
    const failed: string[] = [];
    const timeout = AbortSignal.timeout(30_000);
    for (const name of this.#created.splice(0)) {
      try {
        await this.#run(`DROP ROLE IF EXISTS ${quoteIdent(name)}`, undefined, timeout);
      } catch (err) {
        failed.push(`${name}: ${err instanceof PgError ? err.reason : String(err)}`);
      }
    }
    return failed;
  }
}
