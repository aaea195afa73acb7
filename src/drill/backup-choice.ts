import type { ApiClient } from '../api/client.js';
import { getRecoverySummary } from '../api/operations/recovery.js';
import { ApiError, CliError } from '../errors.js';
import { selectBackup, type SelectedBackup, type SelectionRule } from '../restore/select/backup-selection.js';
import type { DatabaseDrill } from './document.js';

/** The service's proof and custody status of the database, for context only: null where it may not be read. */
export async function serviceView(api: ApiClient, databaseId: string): Promise<DatabaseDrill['service']> {
  try {
    const { data } = await api.send(getRecoverySummary(databaseId));
    return data.latest ? { proofStatus: data.latest.proofStatus, custodyStatus: data.latest.custodyStatus } : null;
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}

/** The backup a database's drill restores: selected, and completed with an artifact, else the backup_selected failure. */
export async function chooseBackup(api: ApiClient, rule: SelectionRule, databaseId: string): Promise<SelectedBackup> {
  const selected = await selectBackup(api, rule);
  const b = selected.backup;
  if (b && b.protectedDatabaseId !== databaseId) {
    throw new CliError('usage', `Backup ${b.id} is a backup of ${b.protectedDatabaseId}, not of ${databaseId}.`);
  }
  if (b && (b.state !== 'completed' || !b.artifact)) {
    throw new CliError('backup_not_restorable', `Backup ${b.id} ${b.state !== 'completed' ? `is ${b.state}, not completed` : 'has no artifact'}.`);
  }
  return selected;
}
