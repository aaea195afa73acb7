/**
 * Readers of a drill's report (cli-contract 9, step 7) as its consumers read it: drill.md's table as
 * a Markdown renderer splits it, junit.xml through a real XML parser (./junit.ts), both checked
 * against the drill document they were written from.
 */
import { expect } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import type { JunitSuite } from './junit.js';

/** Splits a Markdown table row into its cells: `\|` is a pipe inside a cell, `\\` a backslash. */
export function markdownCells(row: string): string[] {
  expect(row.startsWith('|') && row.endsWith('|'), `not a table row: ${row}`).toBe(true);
  const cells: string[] = [];
  let cell = '';
  for (let i = 1; i < row.length; i++) {
    const ch = row[i]!;
    if (ch === '\\' && i + 1 < row.length) {
      cell += row[++i];
    } else if (ch === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  return cells;
}

/** The rows of drill.md's one table (after its header and separator), each as its cells. */
export function markdownTableRows(md: string): string[][] {
  const lines = md.split('\n');
  const header = lines.findIndex((l) => l.startsWith('| Database |'));
  expect(header, 'drill.md has no table').toBeGreaterThanOrEqual(0);
  expect(markdownCells(lines[header]!)).toEqual(['Database', 'Backup', 'Backup age', 'Recovery time', 'Result', 'Failed check']);
  expect(lines[header + 1]).toBe('|---|---|---|---|---|---|');
  const rows: string[][] = [];
  for (let i = header + 2; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(markdownCells(lines[i]!));
  return rows;
}

/** The characters XML 1.0 cannot hold at all: a writer must leave them out. */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
/** An attribute value as a conforming parser returns it (line ends, then whitespace normalised). */
export const asXmlAttribute = (s: string) =>
  s
    .replace(NOT_XML, '')
    .replace(/\r\n/g, '\n')
    .replace(/[\t\n\r]/g, ' ');
/** Element text as a conforming parser returns it (line ends normalised). */
export const asXmlText = (s: string) => s.replace(NOT_XML, '').replace(/\r\n?/g, '\n');

/**
 * junit.xml against the drill document: one <testsuite name="svc restore drill">, one testcase per
 * database and check in the document's order, <failure> for a failed check, <skipped/> for a skipped
 * one, nothing inside a passed one, and counts that add up.
 */
export function expectJunitMatchesDocument(suite: JunitSuite, doc: DrillDocument): void {
  const checks = doc.drill.databases.flatMap((db) => db.checks.map((c) => ({ db, c })));
  expect(suite.tag).toBe('testsuite');
  expect(suite.attributes).toMatchObject({
    name: 'svc restore drill',
    tests: String(checks.length),
    failures: String(checks.filter(({ c }) => c.status === 'failed').length),
    skipped: String(checks.filter(({ c }) => c.status === 'skipped').length),
    errors: '0',
  });
  expect(suite.cases).toHaveLength(checks.length);
  checks.forEach(({ db, c }, i) => {
    const tc = suite.cases[i]!;
    expect({ classname: tc.classname, name: tc.name }).toEqual({ classname: asXmlAttribute(db.databaseId), name: asXmlAttribute(c.name) });
    expect(Number(tc.time)).toBeCloseTo(c.durationMs / 1000, 3);
    if (c.status === 'passed') expect(tc.children).toEqual([]);
    if (c.status === 'skipped') {
      expect(tc.children).toEqual(['skipped']);
      expect(tc.skipped?.message ?? undefined).toBe(c.detail === undefined ? undefined : asXmlAttribute(c.detail));
    }
    if (c.status === 'failed') {
      expect(tc.children).toEqual(['failure']);
      expect(tc.failure!.message).toBe(asXmlAttribute(c.detail ?? 'failed'));
      expect(tc.failure!.text).toBe(asXmlText(c.detail ?? 'failed'));
      expect(tc.failure!.type).toBe(db.failure?.check === c.name ? db.failure.code : 'check_failed');
    }
  });
}

/** drill.md against the document: a row per database in order with its result and failed check, then a section per failure. */
export function expectMarkdownMatchesDocument(md: string, doc: DrillDocument): void {
  const rows = markdownTableRows(md);
  // As a Markdown renderer shows it: control characters gone, a newline as the two characters \n.
  const oneLine = (s: string) =>
    s
      .replace(/\r\n?/g, '\n')
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
      .replace(/\n/g, '\\n');
  expect(rows).toHaveLength(doc.drill.databases.length);
  doc.drill.databases.forEach((db, i) => {
    const [database, backup, , , result, failed] = rows[i]!;
    expect(database!.startsWith(oneLine(db.databaseId)), `${database} is not ${db.databaseId}`).toBe(true);
    expect(backup).toBe(db.backupJobId ?? '-');
    expect(result).toBe(db.result === 'failed' ? '**failed**' : db.result);
    expect(failed).toBe(db.failure?.check ?? '');
  });
  expect(md).toContain(`${doc.drill.passed} passed, ${doc.drill.failed} failed`);
  const failures = doc.drill.databases.filter((db) => db.failure);
  expect(md.includes('## Failures')).toBe(failures.length > 0);
  for (const db of failures) {
    expect(md).toContain(`- check: \`${db.failure!.check}\``);
    expect(md).toContain(`- code: \`${db.failure!.code}\` (exit ${db.exitCode})`);
  }
}
