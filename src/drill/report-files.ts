import { join } from 'node:path';
import { markdownCode, markdownText, xmlText as xml } from '../output/report-text.js';
import { refuseLinks, type UserFiles } from '../output/user-file.js';
import { humanSeconds } from './duration.js';
import type { DatabaseDrill, DrillDocument, MergeNotes } from './document.js';

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

/** What a merged report adds: the shards it holds, and loudly what it lacks. */
function mergeLines(m: MergeNotes): string[] {
  const lines = [`Merged from ${m.shards.length} shard(s): ${m.shards.join(', ')}.`];
  const missing = [...m.missingShards, ...m.missingReports];
  if (missing.length) lines.push(`**Missing: ${missing.map(markdownText).join(', ')}**: those databases are not in this report.`);
  if (m.duplicates.length) lines.push(`Reported by more than one shard (the later report is kept): ${m.duplicates.map(markdownText).join(', ')}.`);
  return [...lines.flatMap((l) => [l, '']).slice(0, -1), ''];
}

/** drill.md: fit for a CI job summary; one row per database, then each failure with its detail. */
export function drillMarkdown(doc: DrillDocument): string {
  const d = doc.drill;
  const lines = [
    '# svc restore drill',
    '',
    `${d.passed} passed, ${d.failed} failed${d.notRun ? `, ${d.notRun} not run` : ''}${d.shard ? ` (shard ${d.shard})` : ''}; ${d.startedAt} to ${d.finishedAt}; scratch ${d.scratch}${d.serverVersion ? ` (PostgreSQL ${d.serverVersion})` : ''}${d.isolation ? `, isolation ${d.isolation}` : ''}.`,
    '',
    ...(d.merge ? mergeLines(d.merge) : []),
    '| Database | Backup | Backup age | Recovery time | Result | Failed check |',
    '|---|---|---|---|---|---|',
    ...d.databases.map((db) => {
      const r = drillRow(db);
      const result = r.result === 'failed' ? '**failed**' : r.result === 'not_run' ? '**not run**' : r.result;
      return `| ${[r.database, r.backup, r.age, r.recovery, result, r.failed].map(markdownText).join(' | ')} |`;
    }),
  ];
  const failures = d.databases.filter((db) => db.failure);
  if (failures.length) {
    lines.push('', '## Failures');
    for (const db of failures) {
      const f = db.failure!;
      lines.push(
        '',
        `### ${markdownText(drillRow(db).database)}`,
        '',
        `- check: ${markdownCode(f.check)}`,
        `- code: ${markdownCode(f.code)} (exit ${db.exitCode})`,
        `- ${markdownText(f.message)}`,
      );
      for (const c of db.checks.filter((x) => x.status === 'failed' && x.name !== f.check))
        lines.push(`- also failed: ${markdownCode(c.name)}: ${markdownText(c.detail ?? '')}`);
    }
  }
  const drift = d.databases.flatMap((db) => db.checks.filter((c) => c.name === 'no_drift').map((c) => ({ db, c })));
  if (drift.length) {
    lines.push('', '## Drift against the baseline', '');
    for (const { db, c } of drift)
      lines.push(`- ${markdownText(drillRow(db).database)}: ${c.status === 'failed' ? '**failed**' : c.status}: ${markdownText(c.detail ?? '')}`);
  }
  const kept = d.databases.filter((db) => db.kept?.length);
  if (kept.length) {
    lines.push('', '## Kept for inspection (--keep)');
    for (const db of kept) lines.push('', `### ${markdownText(drillRow(db).database)}`, '', '```sh', ...db.kept!.map((l) => l.replace(/[\r\n]/g, ' ')), '```');
  }
  lines.push(
    '',
    'A drill restores each backup into a throwaway database on this runner and checks it there. It is evidence of this run only: the service was not told (API v1 has no operation to record it).',
    '',
  );
  return lines.join('\n');
}

/**
 * junit.xml: one testsuite, one testcase per database and check, failures and skips marked; a
 * database not run is one errored testcase named for why (interrupted, deadline).
 */
export function drillJunit(doc: DrillDocument): string {
  const notRun = doc.drill.databases.filter((db) => db.result === 'not_run' && db.failure);
  const errors = notRun.map((db) => {
    const f = db.failure!;
    return `  <testcase classname="${xml(db.databaseId)}" name="${xml(f.check)}" time="0.000">\n    <error message="${xml(f.message)}" type="${xml(f.code)}">${xml(f.message)}</error>\n  </testcase>`;
  });
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
    `<testsuite name="svc restore drill" tests="${cases.length + errors.length}" failures="${count('failed')}" errors="${errors.length}" skipped="${count('skipped')}" time="${seconds(total)}" timestamp="${xml(doc.drill.startedAt)}">`,
    ...body,
    ...errors,
    '</testsuite>',
    '',
  ].join('\n');
}

/** The files of --report DIR that every drill writes, and receipts/. */
export const reportPaths = (dir: string) => ['receipts', 'drill.json', 'drill.md', 'junit.xml'].map((f) => join(dir, f));

/**
 * --report DIR: drill.json, drill.md, junit.xml and receipts/<databaseId>.json (cli-contract 9,
 * step 7), each through the user-file writer (7.15). The document is scrubbed before Markdown and
 * XML are made of it, so a redaction is escaped like any text; the writer scrubs the bytes again.
 */
export async function writeReport(dir: string, doc: DrillDocument, files: UserFiles): Promise<void> {
  const receipts = doc.drill.databases.filter((db) => db.receipt).map((db) => join(dir, 'receipts', receiptFileName(db.databaseId)));
  // Every link refused before any file is replaced: a report is written whole or not at all.
  await refuseLinks([...reportPaths(dir), ...receipts]);
  await files.directory(join(dir, 'receipts'));
  await files.json(join(dir, 'drill.json'), doc);
  const scrubbed = files.scrubbed(doc);
  await files.text(join(dir, 'drill.md'), drillMarkdown(scrubbed));
  await files.text(join(dir, 'junit.xml'), drillJunit(scrubbed));
  for (const db of doc.drill.databases) {
    if (db.receipt) await files.json(join(dir, 'receipts', receiptFileName(db.databaseId)), db.receipt);
  }
}
