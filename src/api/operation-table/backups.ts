import { backupJobDetail, listDatabaseBackupsResponse, triggerBackupRequest, triggerBackupResponse } from '../schemas/backups.js';
import { PAGE, type OperationRows } from './row.js';

export const backupRows = {
  listDatabaseBackups: {
    method: 'GET',
    path: '/databases/:databaseId/backups',
    scope: 'databases:read',
    query: PAGE,
    success: 200,
    response: listDatabaseBackupsResponse,
  },
  triggerBackup: {
    method: 'POST',
    path: '/databases/:databaseId/backups',
    scope: 'backups:trigger',
    query: [],
    success: 202,
    request: triggerBackupRequest,
    response: triggerBackupResponse,
  },
  getBackup: { method: 'GET', path: '/backups/:backupJobId', scope: 'databases:read', query: [], success: 200, response: backupJobDetail },
} as const satisfies OperationRows;
