import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { entriesOf, parseArchiveScript, tablespacesOf } from '../../src/restore/archive/archive-script.js';

/**
 * fixtures/pg/probe-script.sql is `pg_restore --create --schema-only -f -` of a real PostgreSQL 15
 * dump: a LATIN1 database with settings and a comment, an extension in its own schema, a table in a
 * tablespace, a policy TO two roles, an event trigger and a function with SET role.
 */
const script = parseArchiveScript(readFileSync(new URL('../../fixtures/pg/probe-script.sql', import.meta.url), 'utf8'));

describe('the archive schema script', () => {
  it('keeps the DATABASE entry with its encoding and locale, and the database-level settings', () => {
    expect(entriesOf(script, 'DATABASE')[0]).toMatchObject({
      name: 'probe',
      sql: expect.stringContaining("ENCODING = 'LATIN1' LOCALE_PROVIDER = libc LOCALE = 'C'"),
    });
    const props = entriesOf(script, 'DATABASE PROPERTIES')[0]!.sql;
    expect(props).toContain("ALTER DATABASE probe SET search_path TO 'app', 'public';");
    expect(props).not.toContain('\\connect');
    expect(entriesOf(script, 'COMMENT').find((e) => e.name === 'DATABASE probe')?.sql).toBe("COMMENT ON DATABASE probe IS 'the probe db';");
  });

  it('names the tablespaces objects live in, and keeps policy and extension SQL but not table SQL', () => {
    expect(tablespacesOf(script)).toEqual(['fast_ssd']);
    expect(entriesOf(script, 'POLICY')[0]).toMatchObject({ name: 'accounts p_read', schema: 'app', sql: expect.stringContaining('TO authenticated, anon') });
    expect(entriesOf(script, 'EXTENSION')[0]!.sql).toBe('CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA extensions;');
    expect(entriesOf(script, 'TABLE')[0]).toMatchObject({ name: 'accounts', tablespace: 'fast_ssd', sql: '' });
    expect(entriesOf(script, 'EVENT TRIGGER').map((e) => e.name)).toEqual(['et']);
  });
});
