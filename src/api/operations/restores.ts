import type { Operation } from '../client.js';
import { createRestoreRequest, createRestoreResponse, getRestoreResponse, type CreateRestoreRequest } from '../schemas/restores.js';
import { seg } from './common.js';

export const createRestore = (body: CreateRestoreRequest, idempotencyKey?: string) =>
  ({
    name: 'createRestore',
    method: 'POST',
    path: '/restores',
    body: createRestoreRequest.parse(body),
    idempotencyKey,
    response: createRestoreResponse,
  }) satisfies Operation;

export const getRestore = (restoreJobId: string) =>
  ({ name: 'getRestore', method: 'GET', path: `/restores/${seg(restoreJobId)}`, response: getRestoreResponse }) satisfies Operation;
