import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseArchiveScript } from '../../src/restore/archive-script.js';
import { functionLanguage, leftOutIds, unrestorable } from '../../src/restore/not-restored.js';
import { parseTocListing } from '../../src/restore/toc.js';
import { archiveExtensions } from '../../src/restore/unprivileged.js';

const script = parseArchiveScript(readFileSync(new URL('../../fixtures/pg/probe-script.sql', import.meta.url), 'utf8'));
const entry = (type: string, name: string, schema: string, sql: string) => `--\n-- Name: ${name}; Type: ${type}; Schema: ${schema}; Owner: postgres\n--\n\n${sql}\n\n`;

describe('what an unprivileged restore cannot create', () => {
  it('the probe archive: its event trigger, and nothing in a trusted language', () => {
    expect(unrestorable(script, new Set(['plpgsql', 'sql'])).map(({ type, name }) => ({ type, name }))).toEqual([{ type: 'EVENT TRIGGER', name: 'et' }]);
  });

  it('functions in an untrusted language, foreign data wrappers, subscriptions, publications FOR ALL TABLES', () => {
    const s = parseArchiveScript(
      entry('FUNCTION', 'py()', 'public', "CREATE FUNCTION public.py() RETURNS integer\n    LANGUAGE plpython3u\n    AS $$ return 1 $$;") +
        entry('FUNCTION', 'ok()', 'public', "CREATE FUNCTION public.ok() RETURNS integer\n    LANGUAGE sql\n    AS $$\n    LANGUAGE plpython3u\n$$;") +
        entry('FOREIGN DATA WRAPPER', 'w', '-', 'CREATE FOREIGN DATA WRAPPER w;') +
        entry('SUBSCRIPTION', 'sub', '-', "CREATE SUBSCRIPTION sub CONNECTION 'x' PUBLICATION p WITH (connect = false);") +
        entry('PUBLICATION', 'all', '-', 'CREATE PUBLICATION "all" FOR ALL TABLES WITH (publish = \'insert\');') +
        entry('PUBLICATION', 'some', '-', "CREATE PUBLICATION some WITH (publish = 'insert');"),
    );
    const left = unrestorable(s, new Set(['plpgsql', 'sql']));
    expect(left.map(({ type, name }) => `${type} ${name}`)).toEqual(['FUNCTION public.py()', 'FOREIGN DATA WRAPPER w', 'SUBSCRIPTION sub', 'PUBLICATION all']);
    expect(left[0]!.reason).toBe('language plpython3u is not trusted: only a superuser may create its functions');
    expect(functionLanguage("CREATE FUNCTION f() RETURNS int\n    LANGUAGE \"My Lang\"\n    AS 'x';")).toBe('My Lang');
  });

  it('leaves out of pg_restore the event trigger and its comment, the extension and its comment, and the schema created first', () => {
    const toc = parseTocListing(
      [
        '5; 2615 16390 SCHEMA - app postgres',
        '6; 2615 16391 SCHEMA - extensions postgres',
        '2; 3079 16392 EXTENSION - pgcrypto ',
        '3500; 0 0 COMMENT - EXTENSION pgcrypto ',
        '220; 1255 16430 FUNCTION public evt() postgres',
        '3300; 3466 16431 EVENT TRIGGER - et postgres',
        '3501; 0 0 COMMENT - EVENT TRIGGER et postgres',
        '216; 1259 16400 TABLE app accounts postgres',
      ].join('\n'),
    );
    const left = unrestorable(script, new Set(['plpgsql', 'sql']));
    expect([...leftOutIds(toc, left.map((l) => l.entry), ['extensions'])].sort((a, b) => a - b)).toEqual([2, 6, 3300, 3500, 3501]);
  });

  it("reads the archive's extensions strictly, and refuses an entry that is not pg_dump's statement", () => {
    expect(archiveExtensions(script)).toEqual([{ name: 'pgcrypto', schema: 'extensions' }]);
    const forged = parseArchiveScript(entry('EXTENSION', 'x', '-', "CREATE EXTENSION IF NOT EXISTS x WITH SCHEMA public; COPY (SELECT 1) TO PROGRAM 'id';"));
    expect(() => archiveExtensions(forged)).toThrow(/is not a CREATE EXTENSION statement as pg_dump writes it; svc does not run it/);
    const quoted = parseArchiveScript(entry('EXTENSION', 'uuid-ossp', '-', 'CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA "My Ext";'));
    expect(archiveExtensions(quoted)).toEqual([{ name: 'uuid-ossp', schema: 'My Ext' }]);
  });
});
