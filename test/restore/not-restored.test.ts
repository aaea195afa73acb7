import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseArchiveScript } from '../../src/restore/archive/archive-script.js';
import { extensionComments } from '../../src/restore/archive/extension-comments.js';
import { leftOutIds } from '../../src/restore/load/not-restored.js';
import { publicRevokes } from '../../src/restore/archive/public-revokes.js';
import { EntryErrors, refusedEntries } from '../../src/restore/load/refusals.js';
import { parseTocListing } from '../../src/restore/archive/toc.js';
import { archiveExtensions } from '../../src/restore/load/unprivileged.js';

const script = parseArchiveScript(readFileSync(new URL('../../fixtures/pg/probe-script.sql', import.meta.url), 'utf8'));
const entry = (type: string, name: string, schema: string, sql: string) =>
  `--\n-- Name: ${name}; Type: ${type}; Schema: ${schema}; Owner: postgres\n--\n\n${sql}\n\n`;

describe("what an unprivileged restore cannot create, from the server's refusals", () => {
  const toc = parseTocListing(
    [
      '5; 2615 16390 SCHEMA - app postgres',
      '6; 2615 16391 SCHEMA - extensions postgres',
      '2; 3079 16392 EXTENSION - pgcrypto ',
      '3500; 0 0 COMMENT - EXTENSION pgcrypto ',
      '3238; 3576 16477 TRANSFORM - TRANSFORM FOR integer LANGUAGE sql ',
      '220; 1255 16430 FUNCTION public evt() postgres',
      '3300; 3466 16431 EVENT TRIGGER - et postgres',
      '3501; 0 0 COMMENT - EVENT TRIGGER et postgres',
      '216; 1259 16400 TABLE app accounts postgres',
      '3400; 0 16400 TABLE DATA app accounts postgres',
    ].join('\n'),
  );
  const scriptOf = parseArchiveScript(
    entry(
      'TRANSFORM',
      'TRANSFORM FOR integer LANGUAGE sql',
      '-',
      'CREATE TRANSFORM FOR integer LANGUAGE sql (FROM SQL WITH FUNCTION pg_catalog.prsd_lextype(internal), TO SQL WITH FUNCTION pg_catalog.int4recv(internal));',
    ).replace('Owner: postgres', 'Owner: -') +
      entry('EVENT TRIGGER', 'et', '-', 'CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION public.evt();') +
      entry('COMMENT', 'EVENT TRIGGER et', '-', "COMMENT ON EVENT TRIGGER et IS 'x';") +
      entry('TABLE', 'accounts', 'app', 'CREATE TABLE app.accounts (id int);'),
  );
  // pg_restore 15's stderr without --exit-on-error, --verbose progress lines left out.
  const stderr = [
    'pg_restore: while PROCESSING TOC:',
    'pg_restore: from TOC entry 3238; 3576 16477 TRANSFORM TRANSFORM FOR integer LANGUAGE sql (no owner)',
    'pg_restore: error: could not execute query: ERROR:  must be owner of type integer',
    'Command was: CREATE TRANSFORM FOR integer LANGUAGE sql (FROM SQL WITH FUNCTION pg_catalog.prsd_lextype(internal), TO SQL WITH FUNCTION pg_catalog.int4recv(internal));',
    '',
    'pg_restore: from TOC entry 3300; 3466 16431 EVENT TRIGGER et postgres',
    'pg_restore: error: could not execute query: ERROR:  permission denied to create event trigger "et"',
    'HINT:  Must be superuser to create an event trigger.',
    'pg_restore: from TOC entry 3501; 0 0 COMMENT EVENT TRIGGER et postgres',
    'pg_restore: error: could not execute query: ERROR:  event trigger "et" does not exist',
    'pg_restore: warning: errors ignored on restore: 3',
  ];
  const read = (lines: string[]) => {
    const errors = new EntryErrors();
    for (const l of lines) errors.line(l);
    return errors.errors;
  };

  it("lists each refused entry with the server's reason, and the comment that failed only for want of it", () => {
    expect(refusedEntries(read(stderr), toc, scriptOf)).toEqual([
      { type: 'TRANSFORM', name: 'TRANSFORM FOR integer LANGUAGE sql', reason: 'must be owner of type integer' },
      { type: 'EVENT TRIGGER', name: 'et', reason: 'permission denied to create event trigger "et"' },
      { type: 'COMMENT', name: 'EVENT TRIGGER et', reason: 'event trigger "et" does not exist: event trigger et was not restored' },
    ]);
  });

  it('any other error fails, naming its entry', () => {
    const other = [
      ...stderr,
      'pg_restore: from TOC entry 3400; 0 16400 TABLE DATA app accounts postgres',
      'pg_restore: error: COPY failed for table "accounts": ERROR:  relation "lookup" does not exist',
    ];
    expect(() => refusedEntries(read(other), toc, scriptOf)).toThrow(
      /1 error\(s\) that are not a refused privilege: table data app accounts postgres: COPY failed for table "accounts": ERROR:  relation "lookup" does not exist/,
    );
  });

  it('leaves out of pg_restore only what the superuser made first: the extension, its comment and its schema', () => {
    expect([...leftOutIds(toc, ['extensions'])].sort((a, b) => a - b)).toEqual([2, 6, 3500]);
  });

  it("reads the extensions' comments for svc to apply, and lists one of another form", () => {
    const s = parseArchiveScript(
      entry(
        'COMMENT',
        'EXTENSION pgcrypto',
        '-',
        "COMMENT ON EXTENSION pgcrypto IS 'cryptographic functions';\n\nSET default_tablespace = '';\nSET default_table_access_method = heap;",
      ) + entry('COMMENT', 'EXTENSION x', '-', "COMMENT ON EXTENSION x IS 'a'; SELECT 1;"),
    );
    expect(extensionComments(s)).toEqual({
      comments: [{ extension: 'pgcrypto', comment: 'cryptographic functions' }],
      notRestored: [{ type: 'COMMENT', name: 'EXTENSION x', reason: 'not a COMMENT ON EXTENSION statement as pg_dump writes it: svc does not run it' }],
    });
  });

  it('finds the routines whose ACL takes EXECUTE from PUBLIC', () => {
    const s = parseArchiveScript(
      entry(
        'ACL',
        'FUNCTION secret(a integer, b text)',
        'public',
        'REVOKE ALL ON FUNCTION public.secret(a integer, b text) FROM PUBLIC;\nGRANT ALL ON FUNCTION public.secret(a integer, b text) TO app;',
      ) +
        entry('ACL', 'FUNCTION open()', 'public', 'GRANT ALL ON FUNCTION public.open() TO app;') +
        entry('ACL', 'TABLE t', 'public', 'REVOKE ALL ON TABLE public.t FROM PUBLIC;') +
        entry('ACL', 'FUNCTION "My ""f"""(a integer)', 'public', 'REVOKE ALL ON FUNCTION public."My ""f"""(a integer) FROM PUBLIC;'),
    );
    // pg_dump's tag quotes a name as fmtId does: the routine's own name is what the server is asked for.
    expect(publicRevokes(s)).toEqual([
      ['public', 'secret', 'a integer, b text'],
      ['public', 'My "f"', 'a integer'],
    ]);
  });

  it("reads the archive's extensions strictly, and refuses an entry that is not pg_dump's statement", () => {
    expect(archiveExtensions(script)).toEqual([{ name: 'pgcrypto', schema: 'extensions' }]);
    const forged = parseArchiveScript(entry('EXTENSION', 'x', '-', "CREATE EXTENSION IF NOT EXISTS x WITH SCHEMA public; COPY (SELECT 1) TO PROGRAM 'id';"));
    expect(() => archiveExtensions(forged)).toThrow(/is not a CREATE EXTENSION statement as pg_dump writes it; svc does not run it/);
    const quoted = parseArchiveScript(entry('EXTENSION', 'uuid-ossp', '-', 'CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA "My Ext";'));
    expect(archiveExtensions(quoted)).toEqual([{ name: 'uuid-ossp', schema: 'My Ext' }]);
  });
});
