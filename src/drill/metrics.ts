import type { DatabaseDrill, DrillDocument } from './document.js';

/**
 * A drill's results in the Prometheus text exposition format (cli-contract 9.14), for node_exporter's
 * textfile collector and the Pushgateway alike. Every series is a gauge labelled with the database's
 * id and name. `svc_restore_drill_last_success_timestamp_seconds` is written only for a database that
 * passed, or carried over from the last success already recorded (`previousSuccess`): a failed run
 * never erases the time of the last good one, which is what an alert on drill staleness reads.
 */

export const LAST_SUCCESS = 'svc_restore_drill_last_success_timestamp_seconds';

const FAMILIES: Record<string, string> = {
  svc_restore_drill_success: "1 when the database's last drill passed, 0 when it failed.",
  svc_restore_drill_last_run_timestamp_seconds: 'When the database was last drilled (Unix time).',
  [LAST_SUCCESS]: 'When a drill of the database last passed (Unix time).',
  svc_restore_drill_recovery_time_seconds: 'Recovery time the last drill achieved: createRestore to the last check.',
  svc_restore_drill_recovery_point_age_seconds: 'Age of the backup the last drill restored (from its start): the recovery point proved.',
  svc_restore_drill_phase_seconds: 'Seconds each phase of the last drill took.',
  svc_restore_drill_check_success: '1 when a check of the last drill passed, 0 when it failed (skipped checks are left out).',
  svc_restore_drill_rows: 'Rows of the database the last drill restored (the tables rows_match counted).',
  svc_restore_drill_size_bytes: 'Bytes on disk of those tables, restored (heap, indexes, TOAST).',
  svc_restore_drill_databases: 'Databases of this run by result.',
};

type Labels = Record<string, string>;
interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

/** A label value as the exposition format escapes it: backslash, double quote and newline. */
export function labelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

const labelText = (labels: Labels) =>
  Object.keys(labels).length
    ? `{${Object.entries(labels)
        .map(([k, v]) => `${k}="${labelValue(v)}"`)
        .join(',')}}`
    : '';

function databaseSamples(d: DatabaseDrill, at: number): Sample[] {
  const who = { database_id: d.databaseId, database: d.name ?? d.databaseId };
  const samples: Sample[] = [
    { name: 'svc_restore_drill_success', labels: who, value: d.result === 'passed' ? 1 : 0 },
    { name: 'svc_restore_drill_last_run_timestamp_seconds', labels: who, value: at },
  ];
  if (d.result === 'passed') samples.push({ name: LAST_SUCCESS, labels: who, value: at });
  if (d.recoveryTimeMs !== null) samples.push({ name: 'svc_restore_drill_recovery_time_seconds', labels: who, value: d.recoveryTimeMs / 1000 });
  if (d.backupAgeSeconds !== null) samples.push({ name: 'svc_restore_drill_recovery_point_age_seconds', labels: who, value: d.backupAgeSeconds });
  for (const [phase, ms] of Object.entries(d.phases)) {
    if (ms !== undefined) samples.push({ name: 'svc_restore_drill_phase_seconds', labels: { ...who, phase }, value: ms / 1000 });
  }
  if (d.fingerprint) {
    samples.push({ name: 'svc_restore_drill_rows', labels: who, value: d.fingerprint.totals.rows });
    samples.push({ name: 'svc_restore_drill_size_bytes', labels: who, value: d.fingerprint.totals.sizeBytes });
  }
  for (const c of d.checks) {
    if (c.status !== 'skipped')
      samples.push({ name: 'svc_restore_drill_check_success', labels: { ...who, check: c.name }, value: c.status === 'passed' ? 1 : 0 });
  }
  return samples;
}

/**
 * The exposition text of a run. `previousSuccess` maps a database id to the last-success time
 * recorded before this run (the previous file, or the Pushgateway's group); it is kept for every
 * database of this run that did not pass.
 */
export function drillMetrics(doc: DrillDocument, previousSuccess: ReadonlyMap<string, { labels: Labels; value: number }> = new Map()): string {
  const d = doc.drill;
  const at = Math.round(Date.parse(d.finishedAt) / 1000);
  // A database not run (a signal, --deadline) proved nothing: no sample of its own, its last success kept.
  const samples = d.databases.filter((db) => db.result !== 'not_run').flatMap((db) => databaseSamples(db, at));
  for (const db of d.databases) {
    const kept = db.result !== 'passed' ? previousSuccess.get(db.databaseId) : undefined;
    if (kept) samples.push({ name: LAST_SUCCESS, labels: kept.labels, value: kept.value });
  }
  const byResult = { passed: d.passed, failed: d.failed, not_run: d.notRun ?? 0 };
  for (const [result, value] of Object.entries(byResult)) samples.push({ name: 'svc_restore_drill_databases', labels: { result }, value });
  const lines: string[] = [];
  for (const [name, help] of Object.entries(FAMILIES)) {
    const family = samples.filter((s) => s.name === name);
    if (!family.length) continue;
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, ...family.map((s) => `${name}${labelText(s.labels)} ${s.value}`));
  }
  return `${lines.join('\n')}\n`;
}

const SAMPLE_LINE = /^(\w+)\{(.*)\} (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;
const unescape = (v: string) => v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));

/** The last-success series of an earlier exposition text (svc's own previous --metrics-file), by database id. */
export function lastSuccesses(text: string): Map<string, { labels: Labels; value: number }> {
  const found = new Map<string, { labels: Labels; value: number }>();
  for (const line of text.split('\n')) {
    const m = SAMPLE_LINE.exec(line);
    if (!m || m[1] !== LAST_SUCCESS) continue;
    const labels: Labels = {};
    for (const [, k, v] of m[2]!.matchAll(LABEL)) labels[k!] = unescape(v!);
    const value = Number(m[3]);
    if (labels.database_id !== undefined && Number.isFinite(value)) found.set(labels.database_id, { labels, value });
  }
  return found;
}
