import type { Operation } from '../client.js';
import { backupJobDetail, listDatabaseBackupsResponse, triggerBackupRequest, triggerBackupResponse } from '../schemas/backups.js';
import { DATABASE_ID, databaseNotFound, seg, type PageParams } from './common.js';

export const listDatabaseBackups = (databaseId: string, page: PageParams) =>
  ({
    name: 'listDatabaseBackups',
    method: 'GET',
    path: `/databases/${seg(databaseId)}/backups`,
    query: { ...page },
    notFound: databaseNotFound(databaseId),
    response: listDatabaseBackupsResponse,
  }) satisfies Operation;

export const triggerBackup = (databaseId: string, idempotencyKey?: string) =>
  ({
    name: 'triggerBackup',
    method: 'POST',
    path: `/databases/${seg(databaseId)}/backups`,
    body: triggerBackupRequest.parse({ trigger: 'adhoc' }),
    idempotencyKey,
    notFound: databaseNotFound(databaseId),
    response: triggerBackupResponse,
  }) satisfies Operation;

export const getBackup = (backupJobId: string) =>
  ({
    name: 'getBackup',
    method: 'GET',
    path: `/backups/${seg(backupJobId)}`,
    notFound: { what: `backup job ${backupJobId}`, list: [['backups', 'list', DATABASE_ID]], tool: 'list_backups' },
    response: backupJobDetail,
  }) satisfies Operation;
