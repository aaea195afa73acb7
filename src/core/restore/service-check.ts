import { backupRows } from '../../api/operation-table/backups.js';
import { restoreRows } from '../../api/operation-table/restores.js';
import { getProfile } from '../../api/operations/profile.js';
import { CliError } from '../../errors.js';
import { formatBytes } from '../../output/format.js';
import { backupTimes, describeSelection, selectBackup, type SelectedBackup, type SelectionRule } from '../../restore/select/backup-selection.js';
import type { ServiceCheck } from '../../restore/run.js';
import type { Session } from '../../session.js';

const RESTORE_SCOPE = restoreRows.createRestore.scope;

/** A dry run's first question (cli-contract 7.2): may this token create restores at all? Exit 4 naming the scope. */
export async function assertMayRestore(session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getProfile());
  if (!data.profile.scopes.includes(RESTORE_SCOPE)) {
    throw new CliError('missing_scope', `This API key cannot create restores: it lacks ${RESTORE_SCOPE}. The real run would be refused.`, {
      requiredScope: RESTORE_SCOPE,
    });
  }
}

/**
 * What the service says of the chosen backup before anything is created (cli-contract 7.2): it
 * must be completed with an artifact (exit 7); its size feeds the disk check and the in-place
 * prompt names it. getBackup needs databases:read: a restore-only token cannot read it, and the
 * real run then goes on with the size the coordinates give (checked again before the download).
 */
export async function checkBackup(session: Session, selected: SelectedBackup, dryRun: boolean): Promise<ServiceCheck> {
  const { backup } = selected;
  const id = selected.selection.backupJobId;
  if (!backup) {
    if (dryRun && selected.unreadable) throw selected.unreadable;
    session.ui.warn(
      `This API key cannot read backup ${id} (it needs ${selected.unreadable?.details.requiredScope ?? backupRows.getBackup.scope}): the disk check waits for the restore job's coordinates.`,
    );
    return { selection: selected.selection };
  }
  if (backup.state !== 'completed' || !backup.artifact) {
    const why = backup.state !== 'completed' ? `is ${backup.state}, not completed` : 'is completed but has no artifact';
    throw new CliError('backup_not_restorable', `Backup job ${id} ${why}. Nothing was created.`, {
      hint: `Pick a completed backup: ${session.svcCommand(['backups', 'list'], [backup.protectedDatabaseId])}`,
    });
  }
  // The same times and the same one age as the "Using ..." line above it (cli-contract 4, v5).
  const times = backupTimes(
    { startedAt: backup.startedAt ?? selected.selection.startedAt, completedAt: backup.completedAt ?? selected.selection.completedAt },
    session.now(),
  );
  const size = formatBytes(backup.artifact.sizeBytes).split(' (')[0];
  return {
    selection: selected.selection,
    artifactBytes: backup.artifact.sizeBytes,
    backup: `${id} of ${backup.protectedDatabaseId}${times ? `, ${times}` : ''}, ${size}`,
  };
}

/**
 * The first API calls of a restore or its dry run, after the local preflight (cli-contract 7,
 * steps 0 and 2): for a dry run, whether the token may restore at all; then which backup, said
 * plainly on stderr, and the service's word on it. `restore create` and the agent server's
 * plan_restore both ask this way.
 */
export async function serviceCheck(session: Session, rule: SelectionRule, dryRun: boolean): Promise<ServiceCheck> {
  if (dryRun) await assertMayRestore(session);
  const selected = await selectBackup(await session.api(), rule);
  session.ui.info(describeSelection(selected, session.now()));
  return checkBackup(session, selected, dryRun);
}
