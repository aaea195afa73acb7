import { getDatabaseResponse, listDatabasesResponse } from '../schemas/databases.js';
import { PAGE, type OperationRows } from './row.js';

export const databaseRows = {
  listDatabases: { method: 'GET', path: '/databases', scope: 'databases:read', query: PAGE, success: 200, response: listDatabasesResponse },
  getDatabase: { method: 'GET', path: '/databases/:databaseId', scope: 'databases:read', query: [], success: 200, response: getDatabaseResponse },
} as const satisfies OperationRows;
