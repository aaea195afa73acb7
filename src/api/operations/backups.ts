import { operation } from '../operation.js';
import { backupRows } from '../operation-table/backups.js';
import { DATABASE_ID, databaseNotFound, type PageParams } from './common.js';

export const listDatabaseBackups = (databaseId: string, page: PageParams) =>
  operation(backupRows, 'listDatabaseBackups', { params: { databaseId }, query: { ...page }, notFound: databaseNotFound(databaseId) });

export const triggerBackup = (databaseId: string, idempotencyKey?: string) =>
  operation(backupRows, 'triggerBackup', { params: { databaseId }, body: { trigger: 'adhoc' }, idempotencyKey, notFound: databaseNotFound(databaseId) });

export const getBackup = (backupJobId: string) =>
  operation(backupRows, 'getBackup', {
    params: { backupJobId },
    notFound: { what: `backup job ${backupJobId}`, list: [['backups', 'list', DATABASE_ID]], tool: 'list_backups' },
  });
