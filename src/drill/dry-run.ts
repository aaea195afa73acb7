import type { ApiClient } from '../api/client.js';
import { CliError } from '../errors.js';
import { backupAgeSeconds, selectBackup, type SelectionRule } from '../restore/select/backup-selection.js';
import { blankDrill, type DatabaseDrill } from './document.js';

/** A dry run's line for one database: the backup it would use, or why there is none. Nothing is created. */
export async function dryRunLine(api: ApiClient, db: { id: string; name: string | null }, rule: SelectionRule, now: Date): Promise<DatabaseDrill> {
  const base = blankDrill(db, 'planned');
  try {
    const { selection } = await selectBackup(api, rule);
    return {
      ...base,
      backupJobId: selection.backupJobId,
      backupStartedAt: selection.startedAt,
      backupCompletedAt: selection.completedAt,
      backupAgeSeconds: backupAgeSeconds(selection, now),
    };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { ...base, result: 'failed', exitCode: err.exitCode, failure: { check: 'backup_selected', code: err.details.code, message: err.message } };
  }
}
