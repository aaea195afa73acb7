import { getDatabaseResponse, listDatabasesResponse } from '../schemas/databases.js';
import { OPERATION_ROUTES as ROUTES } from '../operation-routes.js';
import type { OperationRows } from './row.js';

export const databaseRows = {
  listDatabases: { ...ROUTES.listDatabases, response: listDatabasesResponse },
  getDatabase: { ...ROUTES.getDatabase, response: getDatabaseResponse },
} as const satisfies OperationRows;
