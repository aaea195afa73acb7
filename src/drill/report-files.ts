import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJsonFile } from '../config/json-file.js';
import { humanSeconds } from './duration.js';
import type { DatabaseDrill, DrillDocument } from './document.js';

/** A database id as a file name: kept where it is plain, percent-encoded otherwise (an id may hold any character). */
export function receiptFileName(databaseId: string): string {
  const safe = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(databaseId) ? databaseId : encodeURIComponent(databaseId).replace(/\./g, '%2E').replace(/\*/g, '%2A');
  return `${safe}.json`;
}

const recovery = (ms: number | null) => (ms === null ? '-' : ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : humanSeconds(ms / 1000));
const age = (s: number | null) => (s === null ? '-' : humanSeconds(s));

/** The figures of a database's row, for every view of the drill: table, Markdown, JUnit. */
export function drillRow(d: DatabaseDrill): { database: string; backup: string; age: string; recovery: string; result: string; failed: string } {
  return {
    database: d.name && d.name !== d.databaseId ? `${d.databaseId} (${d.name})` : d.databaseId,
    backup: d.backupJobId ?? '-',
    age: age(d.backupAgeSeconds),
    recovery: recovery(d.recoveryTimeMs),
    result: d.result,
    failed: d.failure?.check ?? '',
  };
}

/** A Markdown table cell: no pipe or newline may break the row. */
const cell = (text: string) => text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** drill.md: fit for a CI job summary; one row per database, then each failure with its detail. */
export function drillMarkdown(doc: DrillDocument): string {
  const d = doc.drill;
  const lines = [
    '# svc restore drill',
    '',
    `${d.passed} passed, ${d.failed} failed${d.shard ? ` (shard ${d.shard})` : ''}; ${d.startedAt} to ${d.finishedAt}; scratch ${d.scratch}${d.serverVersion ? ` (PostgreSQL ${d.serverVersion})` : ''}.`,
    '',
    '| Database | Backup | Backup age | Recovery time | Result | Failed check |',
    '|---|---|---|---|---|---|',
    ...d.databases.map((db) => {
      const r = drillRow(db);
      return `| ${[r.database, r.backup, r.age, r.recovery, r.result === 'failed' ? '**failed**' : r.result, r.failed].map(cell).join(' | ')} |`;
    }),
  ];
  const failures = d.databases.filter((db) => db.failure);
  if (failures.length) {
    lines.push('', '## Failures');
    for (const db of failures) {
      const f = db.failure!;
      lines.push('', `### ${cell(drillRow(db).database)}`, '', `- check: \`${f.check}\``, `- code: \`${f.code}\` (exit ${db.exitCode})`, `- ${cell(f.message)}`);
      for (const c of db.checks.filter((x) => x.status === 'failed' && x.name !== f.check)) lines.push(`- also failed: \`${c.name}\`: ${cell(c.detail ?? '')}`);
    }
  }
  const kept = d.databases.filter((db) => db.kept?.length);
  if (kept.length) {
    lines.push('', '## Kept for inspection (--keep)');
    for (const db of kept) lines.push('', `### ${cell(drillRow(db).database)}`, '', '```sh', ...db.kept!.map((l) => l.replace(/[\r\n]/g, ' ')), '```');
  }
  lines.push(
    '',
    'A drill restores each backup into a throwaway database on this runner and checks it there. It is evidence of this run only: the service was not told (API v1 has no operation to record it).',
    '',
  );
  return lines.join('\n');
}

/** XML text or attribute value: escaped, and without the characters XML 1.0 cannot hold at all. */
// eslint-disable-next-line no-control-regex
const xml = (text: string) => text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** junit.xml: one testsuite, one testcase per database and check, failures and skips marked. */
export function drillJunit(doc: DrillDocument): string {
  const cases = doc.drill.databases.flatMap((db) => db.checks.map((c) => ({ db, c })));
  const count = (s: string) => cases.filter(({ c }) => c.status === s).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = cases.reduce((a, { c }) => a + c.durationMs, 0);
  const body = cases.map(({ db, c }) => {
    const open = `  <testcase classname="${xml(db.databaseId)}" name="${xml(c.name)}" time="${seconds(c.durationMs)}"`;
    if (c.status === 'passed') return `${open}/>`;
    if (c.status === 'skipped') return `${open}>\n    <skipped${c.detail ? ` message="${xml(c.detail)}"` : ''}/>\n  </testcase>`;
    const message = c.detail ?? 'failed';
    return `${open}>\n    <failure message="${xml(message)}" type="${xml(db.failure?.check === c.name ? db.failure.code : 'check_failed')}">${xml(message)}</failure>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="svc restore drill" tests="${cases.length}" failures="${count('failed')}" errors="0" skipped="${count('skipped')}" time="${seconds(total)}" timestamp="${xml(doc.drill.startedAt)}">`,
    ...body,
    '</testsuite>',
    '',
  ].join('\n');
}

/** 0644 like drill.json and the receipts, whatever the umask, and over a file of an earlier run. */
async function writeText(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o644 });
  await chmod(path, 0o644);
}

/** --report DIR: drill.json, drill.md, junit.xml and receipts/<databaseId>.json (cli-contract 9, step 7). */
export async function writeReport(dir: string, doc: DrillDocument): Promise<void> {
  await mkdir(join(dir, 'receipts'), { recursive: true });
  await writeJsonFile(join(dir, 'drill.json'), doc, 0o644);
  await writeText(join(dir, 'drill.md'), drillMarkdown(doc));
  await writeText(join(dir, 'junit.xml'), drillJunit(doc));
  for (const db of doc.drill.databases) {
    if (db.receipt) await writeJsonFile(join(dir, 'receipts', receiptFileName(db.databaseId)), db.receipt, 0o644);
  }
}
