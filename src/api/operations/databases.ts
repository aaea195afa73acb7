import type { Operation } from '../client.js';
import { getDatabaseResponse, listDatabasesResponse } from '../schemas/databases.js';
import { databaseNotFound, seg, type PageParams } from './common.js';

export const listDatabases = (page: PageParams) =>
  ({ name: 'listDatabases', method: 'GET', path: '/databases', query: { ...page }, response: listDatabasesResponse }) satisfies Operation;

export const getDatabase = (databaseId: string) =>
  ({
    name: 'getDatabase',
    method: 'GET',
    path: `/databases/${seg(databaseId)}`,
    notFound: databaseNotFound(databaseId),
    response: getDatabaseResponse,
  }) satisfies Operation;
