import { createRestoreRequest, createRestoreResponse, getRestoreResponse } from '../schemas/restores.js';
import type { OperationRows } from './row.js';

export const restoreRows = {
  createRestore: {
    method: 'POST',
    path: '/restores',
    scope: 'restores:write',
    query: [],
    success: 202,
    request: createRestoreRequest,
    response: createRestoreResponse,
  },
  getRestore: { method: 'GET', path: '/restores/:restoreJobId', scope: 'restores:read', query: [], success: 200, response: getRestoreResponse },
} as const satisfies OperationRows;
