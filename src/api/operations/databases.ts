import { operation } from '../operation.js';
import { databaseRows } from '../operation-table/databases.js';
import { databaseNotFound, type PageParams } from './common.js';

export const listDatabases = (page: PageParams) => operation(databaseRows, 'listDatabases', { query: { ...page } });

export const getDatabase = (databaseId: string) => operation(databaseRows, 'getDatabase', { params: { databaseId }, notFound: databaseNotFound(databaseId) });
