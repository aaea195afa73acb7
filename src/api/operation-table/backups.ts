import { backupJobDetail, listDatabaseBackupsResponse, triggerBackupRequest, triggerBackupResponse } from '../schemas/backups.js';
import { OPERATION_ROUTES as ROUTES } from '../operation-routes.js';
import type { OperationRows } from './row.js';

export const backupRows = {
  listDatabaseBackups: { ...ROUTES.listDatabaseBackups, response: listDatabaseBackupsResponse },
  triggerBackup: { ...ROUTES.triggerBackup, request: triggerBackupRequest, response: triggerBackupResponse },
  getBackup: { ...ROUTES.getBackup, response: backupJobDetail },
} as const satisfies OperationRows;
