import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { missingLocales } from '../../src/restore/target/archive-needs.js';
import { parseArchiveScript } from '../../src/restore/archive/archive-script.js';
import { createClauses, databaseOptions, describeOptions } from '../../src/restore/archive/database-options.js';
import { archiveSettings } from '../../src/restore/archive/database-settings.js';

const probe = parseArchiveScript(readFileSync(new URL('../../fixtures/pg/probe-script.sql', import.meta.url), 'utf8'));

/** A schema script with one DATABASE entry, as pg_restore --create --schema-only prints it. */
const withCreate = (create: string) =>
  parseArchiveScript(
    ['--', '-- Name: src; Type: DATABASE; Schema: -; Owner: postgres', '--', '', create, '', '', 'ALTER DATABASE src OWNER TO postgres;', ''].join('\n'),
  );

describe("the archive's encoding and locale (the DATABASE entry)", () => {
  it.each([
    [
      'pg_dump 14, one locale',
      "CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = 'UTF8' LOCALE = 'en_US.UTF-8';",
      { ENCODING: 'UTF8', LOCALE: 'en_US.UTF-8', LOCALE_PROVIDER: 'libc' },
    ],
    [
      'pg_dump 14, LC_COLLATE and LC_CTYPE apart',
      "CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = 'LATIN1' LC_COLLATE = 'C' LC_CTYPE = 'de_DE';",
      { ENCODING: 'LATIN1', LC_COLLATE: 'C', LC_CTYPE: 'de_DE', LOCALE_PROVIDER: 'libc' },
    ],
    [
      'pg_dump 15, libc',
      "CREATE DATABASE probe WITH TEMPLATE = template0 ENCODING = 'LATIN1' LOCALE_PROVIDER = libc LOCALE = 'C';",
      { ENCODING: 'LATIN1', LOCALE: 'C', LOCALE_PROVIDER: 'libc' },
    ],
    [
      'pg_dump 15, ICU',
      "CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = 'UTF8' LOCALE_PROVIDER = icu LOCALE = 'C' ICU_LOCALE = 'de-DE';",
      { LOCALE_PROVIDER: 'icu', LOCALE: 'C', ICU_LOCALE: 'de-DE' },
    ],
    [
      'pg_dump 16, ICU with rules',
      "CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = 'UTF8' LOCALE_PROVIDER = icu LOCALE = 'C' ICU_LOCALE = 'und' ICU_RULES = '&a < g';",
      { ICU_LOCALE: 'und', ICU_RULES: '&a < g' },
    ],
    [
      'pg_dump 17, builtin',
      "CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = 'UTF8' LOCALE_PROVIDER = builtin LOCALE = 'C' BUILTIN_LOCALE = 'C.UTF-8';",
      { LOCALE_PROVIDER: 'builtin', BUILTIN_LOCALE: 'C.UTF-8' },
    ],
    [
      'pg_dump 18, a quoted name and a tablespace',
      `CREATE DATABASE "Orders ""EU""" WITH TEMPLATE = template0 ENCODING = 'UTF8' LOCALE_PROVIDER = libc LOCALE = 'C.UTF-8' TABLESPACE = fast_ssd;`,
      { LOCALE: 'C.UTF-8' },
    ],
  ])('%s', (_, create, expected) => {
    expect(databaseOptions(withCreate(create))).toMatchObject(expected);
  });

  it('reads the real probe archive (LATIN1, libc C) and refuses anything outside the grammar', () => {
    expect(databaseOptions(probe)).toEqual({ ENCODING: 'LATIN1', LOCALE_PROVIDER: 'libc', LOCALE: 'C' });
    expect(databaseOptions(withCreate("CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = E'UTF8';"))).toBeUndefined();
    expect(databaseOptions(withCreate("CREATE DATABASE src WITH ENCODING = 'UTF8' LOCALE = $$C$$;"))).toBeUndefined();
    expect(databaseOptions(withCreate("CREATE DATABASE src WITH SOMETHING = 'x';"))).toBeUndefined();
  });

  it('quotes each option as a literal (a quote in a value stays in it); an option the server is too old for is exit 11', () => {
    const icu = databaseOptions(
      withCreate("CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = 'UTF8' LOCALE_PROVIDER = icu LOCALE = 'C' ICU_LOCALE = 'de-DE';"),
    )!;
    expect(createClauses(icu, 15, '15.18')).toEqual({
      sql: "ENCODING 'UTF8' LOCALE 'C' LOCALE_PROVIDER 'icu' ICU_LOCALE 'de-DE'",
    });
    const quoted = databaseOptions(withCreate("CREATE DATABASE src WITH ENCODING = 'UTF8' LOCALE = 'x''; DROP TABLE t; --\\';"))!;
    expect(createClauses(quoted, 15, '15.18').sql).toBe("ENCODING 'UTF8' LOCALE E'x''; DROP TABLE t; --\\\\' LOCALE_PROVIDER 'libc'");
    expect(() => createClauses(icu, 14, '14.20')).toThrow(
      expect.objectContaining({
        exitCode: 11,
        message: expect.stringContaining("LOCALE_PROVIDER = 'icu', which PostgreSQL 14.20 does not support (15 or newer)"),
      }),
    );
    // A libc database of pg_dump 15+ says LOCALE_PROVIDER = libc: what a 14 server does anyway.
    expect(createClauses(databaseOptions(probe)!, 14, '14.20').sql).toBe("ENCODING 'LATIN1' LOCALE 'C'");
    expect(describeOptions(icu)).toBe('UTF8, icu de-DE (C)');
  });

  it('a locale the target lacks is named with the closest it has', () => {
    const icu = databaseOptions(withCreate("CREATE DATABASE src WITH ENCODING = 'UTF8' LOCALE_PROVIDER = icu LOCALE = 'en_US.UTF-8' ICU_LOCALE = 'de-QQ';"))!;
    const catalog = {
      locales: { libc: ['C', 'POSIX', 'en_US.utf8', 'C.utf8'], icu: ['de', 'de-AT', 'de-DE', 'fr-FR', 'und'], builtin: [] },
      tablespaces: ['pg_default'],
    };
    expect(missingLocales(icu, catalog)).toEqual([{ provider: 'icu', locale: 'de-QQ', closest: ['de-AT', 'de-DE', 'de', 'fr-FR', 'und'] }]);
    expect(missingLocales({ ...icu, LOCALE: 'sv_SE.UTF-8', ICU_LOCALE: 'de-DE' }, catalog)).toMatchObject([{ provider: 'libc', locale: 'sv_SE.UTF-8' }]);
  });
});

describe("the archive's database settings and comment", () => {
  it('re-issues the probe archive settings and comment under the new name; the role setting too, and nothing else', () => {
    const found = archiveSettings(probe);
    expect(found.settings.map((s) => s.sql('restored "copy"'))).toEqual([
      `ALTER DATABASE "restored ""copy""" SET "search_path" TO 'app', 'public';`,
      `ALTER DATABASE "restored ""copy""" SET "statement_timeout" TO '5s';`,
      `ALTER ROLE "anon" IN DATABASE "restored ""copy""" SET "work_mem" TO '8MB';`,
      `COMMENT ON DATABASE "restored ""copy""" IS 'the probe db';`,
    ]);
    expect(found.skipped).toEqual([]);
  });

  it('passes on only string literals, numbers and identifiers: anything else is listed as not applied', () => {
    const script = parseArchiveScript(
      [
        '--',
        '-- Name: src; Type: DATABASE PROPERTIES; Schema: -; Owner: postgres',
        '--',
        '',
        'ALTER DATABASE src SET work_mem TO 65536;',
        'ALTER DATABASE src SET app.x TO (SELECT 1);',
        "ALTER DATABASE src SET datestyle TO E'\\\\x';",
        'ALTER DATABASE src CONNECTION LIMIT = 10;',
        "ALTER DATABASE src SET search_path TO 'a'; DROP TABLE x; --';",
        "ALTER DATABASE src SET timezone TO 'UTC';",
        '',
      ].join('\n'),
    );
    const found = archiveSettings(script);
    expect(found.settings.map((s) => s.sql('n'))).toEqual([`ALTER DATABASE "n" SET "work_mem" TO 65536;`, `ALTER DATABASE "n" SET "search_path" TO 'a';`]);
    expect(found.skipped.map((s) => s.statement)).toEqual([
      'ALTER DATABASE src SET app.x TO (SELECT 1);',
      "ALTER DATABASE src SET datestyle TO E'\\\\x';",
      'ALTER DATABASE src CONNECTION LIMIT = 10;',
      'DROP TABLE x;',
      // An unbalanced quote takes the rest of the entry with it: refused whole, never run.
      "--';\\nALTER DATABASE src SET timezone TO 'UTC';",
    ]);
    expect(found.skipped[2]!.reason).toContain('connection limit');
  });
});
