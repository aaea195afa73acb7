import { getBackup } from '../../api/operations/backups.js';
import { getProfile } from '../../api/operations/profile.js';
import { ApiError, CliError } from '../../errors.js';
import type { Session } from '../../session.js';

const RESTORE_SCOPE = 'restores:write';

/**
 * What the service says of a backup before anything is created (cli-contract 7.2): it must exist
 * (exit 5) and be completed with an artifact (exit 7); its size feeds the disk check. A dry run
 * also checks that the token may create restores (exit 4 naming restores:write). getBackup needs
 * databases:read: a restore-only token cannot read it, and the real run then goes on with the
 * size the coordinates give (checked again before the download).
 */
export async function checkBackup(session: Session, backupJobId: string, dryRun: boolean): Promise<{ artifactBytes?: number }> {
  const api = await session.api();
  if (dryRun) {
    const { data } = await api.send(getProfile());
    if (!data.profile.scopes.includes(RESTORE_SCOPE)) {
      throw new CliError('missing_scope', `This API key cannot create restores: it lacks ${RESTORE_SCOPE}. The real run would be refused.`, {
        requiredScope: RESTORE_SCOPE,
      });
    }
  }
  let backup;
  try {
    backup = (await api.send(getBackup(backupJobId))).data;
  } catch (err) {
    if (!dryRun && err instanceof ApiError && err.status === 403) {
      session.ui.warn(`This API key cannot read backup ${backupJobId} (it needs ${err.details.requiredScope ?? 'databases:read'}): the disk check waits for the restore job's coordinates.`);
      return {};
    }
    throw err;
  }
  if (backup.state !== 'completed' || !backup.artifact) {
    const why = backup.state !== 'completed' ? `is ${backup.state}, not completed` : 'is completed but has no artifact';
    throw new CliError('backup_not_restorable', `Backup job ${backupJobId} ${why}. Nothing was created.`, {
      hint: `Pick a completed backup: svc backups list ${backup.protectedDatabaseId}`,
    });
  }
  return { artifactBytes: backup.artifact.sizeBytes };
}
