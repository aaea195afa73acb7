import type { NotFound } from '../error-hints.js';

export interface PageParams {
  limit?: number;
  cursor?: string;
}

/** A database named in the path: what its 404 means, and where the ids are. */
export const databaseNotFound = (databaseId: string): NotFound => ({ what: `database ${databaseId}`, list: [['databases', 'list']], tool: 'list_databases' });

/** `<databaseId>`: the id a person fills in. */
export const DATABASE_ID = { placeholder: 'databaseId' };
