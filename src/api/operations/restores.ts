import type { Operation } from '../client.js';
import { createRestoreRequest, createRestoreResponse, getRestoreResponse, type CreateRestoreRequest } from '../schemas/restores.js';
import { DATABASE_ID, seg } from './common.js';

export const createRestore = (body: CreateRestoreRequest, idempotencyKey?: string) =>
  ({
    name: 'createRestore',
    method: 'POST',
    path: '/restores',
    body: createRestoreRequest.parse(body),
    idempotencyKey,
    notFound: { what: `backup job ${body.backupJobId}`, list: [['backups', 'list', DATABASE_ID]], tool: 'list_backups' },
    response: createRestoreResponse,
  }) satisfies Operation;

export const getRestore = (restoreJobId: string) =>
  ({
    name: 'getRestore',
    method: 'GET',
    path: `/restores/${seg(restoreJobId)}`,
    // API v1 lists no restore jobs: the id is the one restore create printed (and its receipt holds).
    notFound: { what: `restore job ${restoreJobId}`, list: 'the restore job id printed by svc restore create, or the restoreJobId of its --receipt' },
    response: getRestoreResponse,
  }) satisfies Operation;
