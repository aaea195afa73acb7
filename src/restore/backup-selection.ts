import type { ApiClient } from '../api/client.js';
import { getBackup, listDatabaseBackups } from '../api/operations/backups.js';
import { getDatabase } from '../api/operations/databases.js';
import { getRecoveryWindowProof } from '../api/operations/recovery.js';
import { holdPages } from '../api/paginate.js';
import type { BackupJobDetail, BackupJobSummary } from '../api/schemas/backups.js';
import { ApiError, CliError } from '../errors.js';
import { relativeAge } from '../output/format.js';
import { mapPool } from '../pool.js';

/** How the backup was named (cli-contract 7, step 0). */
export type SelectionRule =
  | { rule: 'id'; backupJobId: string }
  | { rule: 'latest'; databaseId: string }
  | { rule: 'before'; databaseId: string; before: string }
  | { rule: 'window'; windowId: string };

/** The choice as the --json document and the receipt carry it (`backupSelection`). */
export interface BackupSelection {
  rule: SelectionRule['rule'];
  before?: string;
  windowId?: string;
  backupJobId: string;
  /** null only where the token may not read the backup (getBackup 403, `--backup` alone). */
  completedAt: string | null;
}

export interface SelectedBackup {
  selection: BackupSelection;
  /** getBackup's answer; undefined where the token may not read it (a restore-only token with --backup). */
  backup: BackupJobDetail | undefined;
  /** getBackup's 403, where that is why `backup` is undefined: a dry run reports it, a real run goes on. */
  unreadable?: ApiError;
  /** "the newest completed backup of orders-prod": why this one, for the line printed before anything happens. */
  reason: string;
}

/** getBackup reads of candidate backups at once: the selection reads each completed one. */
const DETAIL_READS = 4;

const time = (iso: string | undefined) => (iso === undefined ? Number.NaN : Date.parse(iso));

/** Every backup job of a database, all pages, under the same bounds as --all (cli-contract 6). */
async function allBackups(api: ApiClient, databaseId: string): Promise<BackupJobSummary[]> {
  const page = async (cursor: string | undefined) => {
    const r = await api.send(listDatabaseBackups(databaseId, { cursor }));
    return { body: r.data as Record<string, unknown>, requestId: r.requestId };
  };
  const merged = await holdPages({ first: await page(undefined), itemsKey: 'backupJobs', startCursor: undefined, fetchPage: page });
  return merged.backupJobs as BackupJobSummary[];
}

/** The database's name for messages; its id where the token may not read it. */
async function databaseName(api: ApiClient, databaseId: string): Promise<string> {
  try {
    return (await api.send(getDatabase(databaseId))).data.database.name;
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return databaseId;
    throw err;
  }
}

/**
 * The newest completed backup with an artifact (greatest completedAt, read with getBackup), at or
 * before `before` when given. A job enqueued after `before` cannot have completed by then, so it is
 * not read; every other completed one is, since completion order need not follow enqueue order.
 */
async function newest(api: ApiClient, databaseId: string, before: string | undefined): Promise<SelectedBackup> {
  const [jobs, name] = await Promise.all([allBackups(api, databaseId), databaseName(api, databaseId)]);
  const limit = before === undefined ? Number.POSITIVE_INFINITY : time(before);
  const candidates = jobs.filter((j) => j.state === 'completed' && time(j.enqueuedAt) <= limit);
  const details = await mapPool(candidates, DETAIL_READS, async (j) => (await api.send(getBackup(j.id))).data);
  let best: BackupJobDetail | undefined;
  for (const d of details) {
    if (d.state !== 'completed' || !d.artifact || time(d.completedAt) > limit || Number.isNaN(time(d.completedAt))) continue;
    // A tie goes to the one listed later (enqueued later).
    if (!best || time(d.completedAt) >= time(best.completedAt)) best = d;
  }
  const of = `of ${name === databaseId ? databaseId : `${name} (${databaseId})`}`;
  const when = before === undefined ? '' : ` at or before ${before}`;
  if (!best) {
    throw new CliError('no_eligible_backup', `No completed backup with an artifact ${of}${when}: there is nothing to restore.`, {
      hint: `List its backups with: svc backups list ${databaseId}`,
    });
  }
  return {
    selection: { rule: before === undefined ? 'latest' : 'before', ...(before === undefined ? {} : { before }), backupJobId: best.id, completedAt: best.completedAt ?? null },
    backup: best,
    reason: `the newest completed backup ${of}${when}`,
  };
}

/** The baseline backup of a recovery window (getRecoveryWindowProof): what `svc recovery candidate` recommends. */
async function baselineOf(api: ApiClient, windowId: string): Promise<SelectedBackup> {
  const { data } = await api.send(getRecoveryWindowProof(windowId));
  const baseline = data.proof.baselineArtifact;
  if (baseline.backupJobId === null || !baseline.retained) {
    const why = baseline.backupJobId === null ? 'names no baseline backup' : `has a baseline backup (${baseline.backupJobId}) that is no longer retained`;
    throw new CliError('no_eligible_backup', `Recovery window ${windowId} ${why}: there is nothing to restore from it.`, {
      hint: `See the window's proof with: svc recovery proof ${windowId}; or pick a backup with --database ${data.window.databaseId} --latest`,
    });
  }
  const backup = (await api.send(getBackup(baseline.backupJobId))).data;
  return {
    selection: { rule: 'window', windowId, backupJobId: backup.id, completedAt: backup.completedAt ?? null },
    backup,
    reason: `the baseline backup of recovery window ${windowId}`,
  };
}

/** A backup named by id: read with getBackup where the token may (a restore-only token may not). */
async function byId(api: ApiClient, backupJobId: string): Promise<SelectedBackup> {
  try {
    const backup = (await api.send(getBackup(backupJobId))).data;
    return { selection: { rule: 'id', backupJobId, completedAt: backup.completedAt ?? null }, backup, reason: 'the backup named by --backup' };
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 403)) throw err;
    return { selection: { rule: 'id', backupJobId, completedAt: null }, backup: undefined, unreadable: err, reason: 'the backup named by --backup' };
  }
}

/** Resolves the rule to one backup (cli-contract 7, step 0). No eligible backup is exit 7. */
export function selectBackup(api: ApiClient, rule: SelectionRule): Promise<SelectedBackup> {
  switch (rule.rule) {
    case 'id':
      return byId(api, rule.backupJobId);
    case 'latest':
      return newest(api, rule.databaseId, undefined);
    case 'before':
      return newest(api, rule.databaseId, rule.before);
    case 'window':
      return baselineOf(api, rule.windowId);
  }
}

/** "Using bj_0248, completed 2026-11-24T03:20:00Z (2h ago): the newest completed backup of orders-prod (db_orders)". */
export function describeSelection(selected: SelectedBackup, now: Date): string {
  const { backupJobId, completedAt } = selected.selection;
  const age = completedAt ? relativeAge(completedAt, now) : '';
  const completed = completedAt ? `, completed ${completedAt}${age ? ` (${age})` : ''}` : '';
  return `Using ${backupJobId}${completed}: ${selected.reason}.`;
}
