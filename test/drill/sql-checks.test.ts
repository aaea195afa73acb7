/**
 * The SQL check files of `svc restore drill --check` (cli-contract 9, step 4): dbt-style, each check
 * introduced by `-- check: <name>` and followed by its query. Anything wrong with a file's form is
 * exit 2 before any request; these are the rules a person writing one meets. What the query does is
 * the server's to judge (cli-contract 7.16 b, test/drill/drill-check-transaction.test.ts).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCheckFile, readChecks } from '../../src/drill/sql-checks.js';
import { isCliError } from '../../src/errors.js';
import { ExitCode } from '../../src/exit-codes.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-drill-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The exit-2 message of a call that must refuse. */
async function refusal(fn: () => unknown): Promise<string> {
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  expect(isCliError(caught), `expected a usage error, got ${String(caught)}`).toBe(true);
  if (!isCliError(caught)) return '';
  expect(caught.exitCode).toBe(ExitCode.usage);
  return caught.message;
}

describe('parseCheckFile', () => {
  it('one check per marker, in file order, each with its SELECT (trailing semicolon dropped) and its file', () => {
    const text = [
      '-- Checks of the orders database, run by the nightly drill.',
      '',
      '-- check: no_negative_totals',
      'SELECT id, total FROM orders WHERE total < 0;',
      '',
      '-- check: customers.email-unique_1',
      '-- a comment inside the check',
      'SELECT email, count(*)',
      '  FROM customers',
      ' GROUP BY email HAVING count(*) > 1',
      '',
    ].join('\n');
    expect(parseCheckFile(text, 'orders.sql')).toEqual([
      { name: 'no_negative_totals', sql: 'SELECT id, total FROM orders WHERE total < 0', file: 'orders.sql' },
      {
        name: 'customers.email-unique_1',
        sql: '-- a comment inside the check\nSELECT email, count(*)\n  FROM customers\n GROUP BY email HAVING count(*) > 1',
        file: 'orders.sql',
      },
    ]);
  });

  it.each([
    ['-- check: a', 'a'],
    ['--check:a', 'a'],
    ['--   check:   spaced   ', 'spaced'],
    ['-- check: crlf\r', 'crlf'],
    [`-- check: ${'x'.repeat(64)}`, 'x'.repeat(64)],
  ])('marker %j names the check %j', (marker, name) => {
    expect(parseCheckFile(`${marker}\nSELECT 1\n`, 'f.sql').map((c) => c.name)).toEqual([name]);
  });

  it('WITH ... SELECT, VALUES and TABLE are queries too; keywords in any case', () => {
    const text = ['-- check: cte', 'with t as (select 1 as x) select x from t where x < 0', '-- check: v', 'VALUES (1)', '-- check: t', 'Table orders'].join(
      '\n',
    );
    expect(parseCheckFile(text, 'f.sql').map((c) => c.name)).toEqual(['cte', 'v', 't']);
  });

  it('a marker is a whole line: "-- check:" inside a line, or another case, is part of the SQL', () => {
    const text = ['-- check: a', "SELECT '-- check: b' AS x WHERE false", '-- Check: c', 'AND true'].join('\n');
    expect(parseCheckFile(text, 'f.sql')).toEqual([{ name: 'a', sql: "SELECT '-- check: b' AS x WHERE false\n-- Check: c\nAND true", file: 'f.sql' }]);
  });

  it('a comment after the last semicolon (a note before the next check) still leaves one runnable statement', () => {
    const text = [
      '-- check: a',
      'SELECT 1 WHERE false;',
      '-- b guards against negative totals',
      '',
      '-- check: b',
      'SELECT 2 WHERE false;  ',
      '-- end of file',
      '',
    ].join('\n');
    const checks = parseCheckFile(text, 'f.sql');
    expect(checks.map((c) => c.name)).toEqual(['a', 'b']);
    // Wrapped in a subquery, a semicolon would end the statement before its closing parenthesis.
    for (const c of checks) expect(c.sql).not.toContain(';');
  });

  it('a comment on the closing semicolon\'s line ("SELECT ...; -- why") is dropped with the semicolon', () => {
    const [check] = parseCheckFile('-- check: a\nSELECT 1 WHERE false; -- why this holds\n', 'f.sql');
    expect(check!.sql).toBe('SELECT 1 WHERE false');
  });

  it('a query may open with a parenthesis or a block comment', () => {
    const checks = parseCheckFile('-- check: a\n(SELECT 1 WHERE false)\n-- check: b\n/* why */ SELECT 2 WHERE false\n', 'f.sql');
    expect(checks.map((c) => c.sql)).toEqual(['(SELECT 1 WHERE false)', '/* why */ SELECT 2 WHERE false']);
  });

  it.each([
    ['an empty file', ''],
    ['only blank lines', '\n\n  \n'],
    ['only comments', '-- nothing here yet\n-- check list for later\n'],
  ])('%s holds no check: exit 2 saying how to introduce one', async (_what, text) => {
    expect(await refusal(() => parseCheckFile(text, 'empty.sql'))).toBe('empty.sql holds no check: introduce each with a line "-- check: <name>".');
  });

  it('SQL before the first marker belongs to no check: exit 2', async () => {
    expect(await refusal(() => parseCheckFile('SELECT 1;\n-- check: a\nSELECT 2\n', 'lead.sql'))).toBe(
      'lead.sql: SQL before the first "-- check: <name>" line belongs to no check.',
    );
  });

  it('a marker with nothing after it (or only comments) has no query: exit 2 naming the check', async () => {
    expect(await refusal(() => parseCheckFile('-- check: a\n\n-- check: b\nSELECT 1\n', 'f.sql'))).toBe(
      'f.sql: check "a" has no query after its "-- check:" line.',
    );
    expect(await refusal(() => parseCheckFile('-- check: a\nSELECT 1\n-- check: last\n-- todo\n', 'f.sql'))).toBe(
      'f.sql: check "last" has no query after its "-- check:" line.',
    );
  });

  it.each([
    ['', '""'],
    ['has space', '"has space"'],
    ['semi;colon', '"semi;colon"'],
    ['quote"d', '"quote"d"'],
    ['ünicode', '"ünicode"'],
    ['x'.repeat(65), `"${'x'.repeat(65)}"`],
  ])('the name %j is refused (exit 2): 1 to 64 of A-Z a-z 0-9 _ . -', async (name, shown) => {
    expect(await refusal(() => parseCheckFile(`-- check: ${name}\nSELECT 1\n`, 'f.sql'))).toBe(
      `f.sql: invalid check name ${shown}: use 1 to 64 of A-Z a-z 0-9 _ . -`,
    );
  });

  it.each([
    ['DELETE', 'DELETE FROM orders'],
    ['a DO block', 'DO $$ BEGIN COMMIT; END $$'],
    ['a nested comment before DO', '/* /* */ select */ DO $$ BEGIN COMMIT; END $$'],
    ['a word that starts like select', 'selection_of_rows'],
  ])('a check is not judged by its text (%s): it is kept as written, for the server to run read-only or refuse', (_what, sql) => {
    expect(parseCheckFile(`-- check: any\n${sql}\n`, 'w.sql')).toEqual([{ name: 'any', sql, file: 'w.sql' }]);
  });
});

describe('readChecks (every --check file)', () => {
  it('reads each file in the order given; checks keep their files', async () => {
    const a = file('a.sql', '-- check: one\nSELECT 1 WHERE false\n');
    const b = file('b.sql', '-- check: two\nSELECT 2 WHERE false\n-- check: three\nSELECT 3 WHERE false\n');
    expect(await readChecks([b, a])).toEqual([
      { name: 'two', sql: 'SELECT 2 WHERE false', file: b },
      { name: 'three', sql: 'SELECT 3 WHERE false', file: b },
      { name: 'one', sql: 'SELECT 1 WHERE false', file: a },
    ]);
    expect(await readChecks([])).toEqual([]);
  });

  it('a name used twice across files is exit 2 naming both files', async () => {
    const a = file('dup-a.sql', '-- check: same\nSELECT 1\n');
    const b = file('dup-b.sql', '-- check: other\nSELECT 1\n-- check: same\nSELECT 2\n');
    expect(await refusal(() => readChecks([a, b]))).toBe(`Check "same" is defined twice (${a} and ${b}): check names must be unique.`);
  });

  it('a name used twice in one file is exit 2 too', async () => {
    const a = file('dup-one.sql', '-- check: same\nSELECT 1\n-- check: same\nSELECT 2\n');
    expect(await refusal(() => readChecks([a]))).toBe(`Check "same" is defined twice (${a} and ${a}): check names must be unique.`);
  });

  it('the same file given twice defines each of its checks twice: exit 2', async () => {
    const a = file('twice.sql', '-- check: once\nSELECT 1\n');
    expect(await refusal(() => readChecks([a, a]))).toContain('Check "once" is defined twice');
  });

  it('a missing file or a directory is exit 2 naming it and why', async () => {
    const missing = join(dir, 'missing.sql');
    expect(await refusal(() => readChecks([missing]))).toBe(`Cannot read --check ${missing}: ENOENT.`);
    const sub = join(dir, 'a-directory.sql');
    mkdirSync(sub);
    expect(await refusal(() => readChecks([sub]))).toBe(`Cannot read --check ${sub}: EISDIR.`);
  });

  it('an empty file among good ones is exit 2 naming it', async () => {
    const good = file('good.sql', '-- check: fine\nSELECT 1\n');
    const empty = file('empty.sql', '');
    expect(await refusal(() => readChecks([good, empty]))).toBe(`${empty} holds no check: introduce each with a line "-- check: <name>".`);
  });
});
