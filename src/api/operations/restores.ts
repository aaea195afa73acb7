import { operation } from '../operation.js';
import { restoreRows } from '../operation-table/restores.js';
import type { CreateRestoreRequest } from '../schemas/restores.js';
import { DATABASE_ID } from './common.js';

export const createRestore = (body: CreateRestoreRequest, idempotencyKey?: string) =>
  operation(restoreRows, 'createRestore', {
    body,
    idempotencyKey,
    notFound: { what: `backup job ${body.backupJobId}`, list: [['backups', 'list', DATABASE_ID]], tool: 'list_backups' },
  });

export const getRestore = (restoreJobId: string) =>
  operation(restoreRows, 'getRestore', {
    params: { restoreJobId },
    // API v1 lists no restore jobs: the id is the one restore create printed (and its receipt holds).
    notFound: { what: `restore job ${restoreJobId}`, list: 'the restore job id printed by svc restore create, or the restoreJobId of its --receipt' },
  });
