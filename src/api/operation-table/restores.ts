import { createRestoreRequest, createRestoreResponse, getRestoreResponse } from '../schemas/restores.js';
import { OPERATION_ROUTES as ROUTES } from '../operation-routes.js';
import type { OperationRows } from './row.js';

export const restoreRows = {
  createRestore: { ...ROUTES.createRestore, request: createRestoreRequest, response: createRestoreResponse },
  getRestore: { ...ROUTES.getRestore, response: getRestoreResponse },
} as const satisfies OperationRows;
