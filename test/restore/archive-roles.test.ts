import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { functionRoles, policyRoles, readPolicy, rolesNamed, userMappingRoles } from '../../src/restore/archive/archive-roles.js';
import { parseArchiveScript } from '../../src/restore/archive/archive-script.js';

/** One script entry as `pg_restore --create --schema-only` prints it. */
const entry = (type: string, name: string, schema: string, sql: string) =>
  `--\n-- Name: ${name}; Type: ${type}; Schema: ${schema}; Owner: postgres\n--\n\n${sql}\n\n`;

describe('the roles a policy names', () => {
  it('reads the TO list up to USING', () => {
    expect(policyRoles('CREATE POLICY p_read ON app.accounts FOR SELECT TO authenticated, anon USING (true);')).toEqual(['authenticated', 'anon']);
  });

  it('reads the TO list up to WITH CHECK, and one that ends the statement', () => {
    expect(policyRoles('CREATE POLICY p ON public.t FOR INSERT TO authenticated WITH CHECK ((owner = auth.uid()));')).toEqual(['authenticated']);
    expect(policyRoles('CREATE POLICY p ON public.t TO service_role;')).toEqual(['service_role']);
  });

  it('keeps quoted identifiers as the catalog spells them, and folds plain ones to lower case', () => {
    expect(policyRoles('CREATE POLICY "read own" ON "my schema"."To Do" AS RESTRICTIVE FOR ALL TO "b c", "Admins", "x""y", Readers USING (true);')).toEqual([
      'b c',
      'Admins',
      'x"y',
      'readers',
    ]);
  });

  it('is not fooled by TO, USING or commas inside quoted names', () => {
    expect(readPolicy('CREATE POLICY "to, using" ON public."a TO b" TO "USING", anon USING (("TO" = 1));')).toEqual({
      policy: 'to, using',
      table: 'public.a TO b',
      roles: ['USING', 'anon'],
    });
  });

  it('a policy without TO (PUBLIC) names no role', () => {
    expect(policyRoles('CREATE POLICY p ON public.t USING (true);')).toEqual([]);
  });
});

describe("a function's SET role", () => {
  it('reads the setting before the body, and nothing inside the body', () => {
    const sql = "CREATE FUNCTION public.f() RETURNS integer\n    LANGUAGE sql\n    SET role TO 'anon'\n    AS $$\n    SET role TO 'postgres'\n$$;";
    expect(functionRoles(sql)).toEqual(['anon']);
  });

  it("reads a quoted name with a quote in it, and not SET role TO 'none'", () => {
    expect(functionRoles("CREATE FUNCTION f() RETURNS void\n    LANGUAGE plpgsql\n    SET role TO 'o''brien'\n    AS $$ BEGIN END $$;")).toEqual(["o'brien"]);
    expect(functionRoles("CREATE FUNCTION f() RETURNS void\n    LANGUAGE sql\n    SET role TO 'none'\n    AS $$ $$;")).toEqual([]);
  });
});

describe('rolesNamed', () => {
  it('the probe archive: the policy TO authenticated, anon and the function SET role anon, each role once with what needs it', () => {
    const script = parseArchiveScript(readFileSync(new URL('../../fixtures/pg/probe-script.sql', import.meta.url), 'utf8'));
    expect(rolesNamed(script)).toEqual([
      { name: 'authenticated', neededBy: ['policy "p_read" on app.accounts'] },
      { name: 'anon', neededBy: ['policy "p_read" on app.accounts', 'function public.f()'] },
    ]);
  });

  it('never PUBLIC, CURRENT_USER, SESSION_USER or CURRENT_ROLE; user mappings name their role', () => {
    const script = parseArchiveScript(
      entry('POLICY', 't p', 'public', 'CREATE POLICY p ON public.t TO CURRENT_USER, session_user, current_role, "b c" USING (true);') +
        entry('USER MAPPING', 'USER MAPPING etl SERVER remote', '-', 'CREATE USER MAPPING FOR etl SERVER remote;') +
        entry('USER MAPPING', 'USER MAPPING public SERVER remote', '-', 'CREATE USER MAPPING FOR public SERVER remote;'),
    );
    expect(rolesNamed(script).map((r) => r.name)).toEqual(['b c', 'etl']);
    expect(userMappingRoles('CREATE USER MAPPING FOR "Etl User" SERVER remote OPTIONS (user \'x\');')).toEqual(['Etl User']);
  });
});
