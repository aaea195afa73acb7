/**
 * Archives that test least privilege (cli-contract 7.12, 7.14, 9.9), dumped from a real cluster:
 * - `planted`: an ordinary role of the source database, app_owner, owns a table whose CHECK
 *   constraint calls a PL/pgSQL function. When the role that runs it is a superuser, the function
 *   runs `COPY ... TO PROGRAM 'touch <marker>'` on the server's host; whoever it runs as is logged
 *   in public.planted_log, whose rows the archive leaves out (`--exclude-table-data`): a parallel
 *   pg_restore truncates a table before loading its data, which would erase what the restore logged.
 * - `supabase`: Supabase's pattern: pgcrypto in a schema `extensions`, a table with row-level
 *   security and policies `TO authenticated` and `TO anon, "b c"`, a function with `SET role TO 'anon'`.
 * - `eventTrigger`: an event trigger with a comment, which only a superuser may create.
 */
import { dumpDatabase } from './seed.js';
import type { PgCluster } from './pg-cluster.js';

export const PLANTED_SQL = (marker: string) => `
CREATE ROLE app_owner LOGIN;
GRANT CREATE ON SCHEMA public TO app_owner;
SET ROLE app_owner;
CREATE TABLE public.planted_log (who text NOT NULL, at timestamptz NOT NULL DEFAULT now());
CREATE FUNCTION public.guard(v integer) RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
  IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
    COPY (SELECT 1) TO PROGRAM 'touch ${marker}';
  END IF;
  INSERT INTO public.planted_log (who) VALUES (current_user);
  RETURN v > 0;
END $fn$;
CREATE TABLE public.orders_checked (id integer PRIMARY KEY CHECK (public.guard(id)), note text);
INSERT INTO public.orders_checked SELECT g, 'row ' || g FROM generate_series(1, 3) g;
RESET ROLE;
`;

export const SUPABASE_SQL = `
CREATE ROLE authenticated NOLOGIN;
CREATE ROLE anon NOLOGIN;
CREATE ROLE "b c" NOLOGIN;
CREATE SCHEMA extensions;
CREATE EXTENSION pgcrypto WITH SCHEMA extensions;
CREATE TABLE public.profiles (id integer PRIMARY KEY, name text, token bytea DEFAULT extensions.gen_random_bytes(8));
ALTER TABLE public.profiles ENABLE ROW LEVEL SECURITY;
CREATE POLICY "read profiles" ON public.profiles FOR SELECT TO authenticated USING (true);
CREATE POLICY guarded ON public.profiles TO anon, "b c" USING (id > 0) WITH CHECK (false);
CREATE FUNCTION public.as_anon() RETURNS integer LANGUAGE sql SET role TO 'anon' AS $$ SELECT 1 $$;
INSERT INTO public.profiles (id, name) SELECT g, 'user ' || g FROM generate_series(1, 5) g;
`;

export const EVENT_TRIGGER_SQL = `
CREATE TABLE public.things (id integer PRIMARY KEY);
INSERT INTO public.things VALUES (1), (2);
CREATE FUNCTION public.on_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'ddl'; END $$;
CREATE EVENT TRIGGER audit_ddl ON ddl_command_end EXECUTE FUNCTION public.on_ddl();
COMMENT ON EVENT TRIGGER audit_ddl IS 'audits DDL';
`;

/** Creates `database` in `cluster` from `sql` and dumps it (-Fc) to `file`, without planted_log's rows. */
export async function dumpOf(cluster: PgCluster, database: string, sql: string, file: string): Promise<void> {
  await cluster.psql(`CREATE DATABASE "${database}" TEMPLATE template0 ENCODING 'UTF8'`);
  await cluster.psql(sql, database);
  await dumpDatabase(cluster, database, file, ['--exclude-table-data=public.planted_log']);
}
