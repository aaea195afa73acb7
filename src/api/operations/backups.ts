import type { Operation } from '../client.js';
import { backupJobDetail, listDatabaseBackupsResponse, triggerBackupRequest, triggerBackupResponse } from '../schemas/backups.js';
import { seg, type PageParams } from './common.js';

export const listDatabaseBackups = (databaseId: string, page: PageParams) =>
  ({
    name: 'listDatabaseBackups',
    method: 'GET',
    path: `/databases/${seg(databaseId)}/backups`,
    query: { ...page },
    response: listDatabaseBackupsResponse,
  }) satisfies Operation;

export const triggerBackup = (databaseId: string, idempotencyKey?: string) =>
  ({
    name: 'triggerBackup',
    method: 'POST',
    path: `/databases/${seg(databaseId)}/backups`,
    body: triggerBackupRequest.parse({ trigger: 'adhoc' }),
    idempotencyKey,
    response: triggerBackupResponse,
  }) satisfies Operation;

export const getBackup = (backupJobId: string) =>
  ({ name: 'getBackup', method: 'GET', path: `/backups/${seg(backupJobId)}`, response: backupJobDetail }) satisfies Operation;
