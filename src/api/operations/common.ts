export interface PageParams {
  limit?: number;
  cursor?: string;
}

/** One path segment, percent-encoded. */
export const seg = encodeURIComponent;

/** A database named in the path: what its 404 means, and where the ids are. */
export const databaseNotFound = (databaseId: string) => ({ what: `database ${databaseId}`, list: 'svc databases list' });
