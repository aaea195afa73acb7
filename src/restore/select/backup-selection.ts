import type { ApiClient } from '../../api/client.js';
import { getBackup } from '../../api/operations/backups.js';
import { getDatabase } from '../../api/operations/databases.js';
import { getRecoveryWindowProof } from '../../api/operations/recovery.js';
import type { BackupJobDetail } from '../../api/schemas/backups.js';
import { ApiError, CliError } from '../../errors.js';
import { relativeAge } from '../../output/format.js';
import { shellCommand } from '../../output/shell-quote.js';
import { newestInHistory } from './backup-history.js';

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
  /** When its dump started: the recovery point (cli-contract 7.10); null where the service gives none. */
  startedAt: string | null;
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

/** The selection's times, as the --json documents and receipts carry them. */
const timesOf = (b: BackupJobDetail) => ({ startedAt: b.startedAt ?? null, completedAt: b.completedAt ?? null });

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
 * before `before` when given, read from the history with a bounded number of requests (backup-history.ts).
 */
async function newest(api: ApiClient, databaseId: string, before: string | undefined): Promise<SelectedBackup> {
  const limit = before === undefined ? Number.POSITIVE_INFINITY : Date.parse(before);
  const [best, name] = await Promise.all([newestInHistory(api, databaseId, limit), databaseName(api, databaseId)]);
  const of = `of ${name === databaseId ? databaseId : `${name} (${databaseId})`}`;
  const when = before === undefined ? '' : ` at or before ${before}`;
  if (!best) {
    throw new CliError('no_eligible_backup', `No completed backup with an artifact ${of}${when}: there is nothing to restore.`, {
      hint: `List its backups with: ${api.svcCommand(['backups', 'list'], [databaseId])}`,
    });
  }
  return {
    selection: { rule: before === undefined ? 'latest' : 'before', ...(before === undefined ? {} : { before }), backupJobId: best.id, ...timesOf(best) },
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
      hint: `See the window's proof with: ${api.svcCommand(['recovery', 'proof'], [windowId])}; or pick a backup with ${shellCommand(['--database', data.window.databaseId, '--latest'])}`,
    });
  }
  const backup = (await api.send(getBackup(baseline.backupJobId))).data;
  return {
    selection: { rule: 'window', windowId, backupJobId: backup.id, ...timesOf(backup) },
    backup,
    reason: `the baseline backup of recovery window ${windowId}`,
  };
}

/** A backup named by id: read with getBackup where the token may (a restore-only token may not). */
async function byId(api: ApiClient, backupJobId: string): Promise<SelectedBackup> {
  try {
    const backup = (await api.send(getBackup(backupJobId))).data;
    return { selection: { rule: 'id', backupJobId, ...timesOf(backup) }, backup, reason: 'the backup named by --backup' };
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 403)) throw err;
    return {
      selection: { rule: 'id', backupJobId, startedAt: null, completedAt: null },
      backup: undefined,
      unreadable: err,
      reason: 'the backup named by --backup',
    };
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

/**
 * The backup's recovery point (cli-contract 7.10): its data is as of its dump, which started at
 * startedAt; completedAt stands in only where the service gives no startedAt.
 */
export function recoveryPoint(selection: Pick<BackupSelection, 'startedAt' | 'completedAt'>): { at: string; from: 'startedAt' | 'completedAt' } | undefined {
  if (selection.startedAt) return { at: selection.startedAt, from: 'startedAt' };
  if (selection.completedAt) return { at: selection.completedAt, from: 'completedAt' };
  return undefined;
}

/** The backup's age in whole seconds at `now`, from its recovery point; null where the backup could not be read. */
export function backupAgeSeconds(selection: Pick<BackupSelection, 'startedAt' | 'completedAt'>, now: Date): number | null {
  const point = recoveryPoint(selection);
  return point ? Math.max(0, Math.round((now.getTime() - Date.parse(point.at)) / 1000)) : null;
}

/** What an age is measured from, for the lines that show one where the service gave no start time. */
export const AGE_FROM_COMPLETION = 'the service gives no start time, so the age is from its completion';

/**
 * "started 2026-11-24T03:00:00Z, completed 2026-11-24T03:20:00Z (2h ago, age from its start)": a
 * backup's times with its one age, measured from its recovery point, for every line that names it.
 */
export function backupTimes(selection: Pick<BackupSelection, 'startedAt' | 'completedAt'>, now: Date): string {
  const { startedAt, completedAt } = selection;
  const point = recoveryPoint(selection);
  const age = point ? relativeAge(point.at, now) : '';
  if (point?.from === 'startedAt') return `started ${startedAt}${completedAt ? `, completed ${completedAt}` : ''} (${age ? `${age}, ` : ''}age from its start)`;
  if (point) return `completed ${completedAt} (${age ? `${age}; ` : ''}${AGE_FROM_COMPLETION})`;
  return '';
}

/**
 * "Using bj_0248, started 2026-11-24T03:00:00Z, completed 2026-11-24T03:20:00Z (2h ago, age from its
 * start): the newest completed backup of orders-prod (db_orders)".
 */
export function describeSelection(selected: SelectedBackup, now: Date): string {
  const times = backupTimes(selected.selection, now);
  return `Using ${selected.selection.backupJobId}${times ? `, ${times}` : ''}: ${selected.reason}.`;
}
