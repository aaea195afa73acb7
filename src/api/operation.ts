import type * as z from '../zod.js';
import type { NotFound } from './error-hints.js';
import type { OperationRow, OperationRows } from './operation-table/row.js';

/** One request as the client sends it (ApiClient.send): a row of the operation table, filled in. */
export interface Operation<S extends z.ZodMiniType = z.ZodMiniType> {
  /** operationId of api-v1.md, e.g. listDatabases. */
  name: string;
  method: 'GET' | 'POST';
  /** Path below /api/v1, with ids already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** The user's --idempotency-key; without one the client makes one per logical request. */
  idempotencyKey?: string;
  /** What a 404 means here: the resource it names, and the command that lists what exists. */
  notFound?: NotFound;
  response: S;
}

/** `{ databaseId: string }` of '/databases/:databaseId/backups'. */
type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>;

/** What a call fills in; a path with `:name` segments needs their values. */
type Fill<R extends OperationRow> = (keyof PathParams<R['path']> extends never ? { params?: undefined } : { params: PathParams<R['path']> }) & {
  query?: { [K in R['query'][number]]?: string | number | undefined };
  body?: R['request'] extends z.ZodMiniType ? z.input<R['request']> : never;
  idempotencyKey?: string;
  notFound?: NotFound;
};

/**
 * The request of row `name`: the path template filled with percent-encoded ids, only the row's
 * query keys, the body checked with its request schema. Method, path and schemas come from the row.
 */
export function operation<T extends OperationRows, N extends keyof T & string>(
  rows: T,
  name: N,
  fill: Fill<T[N]> = {} as Fill<T[N]>,
): Operation<T[N]['response']> {
  const row = rows[name]!;
  const params: Record<string, string> = fill.params ?? {};
  const given: Record<string, string | number | undefined> | undefined = fill.query;
  const query = given && Object.fromEntries(Object.entries(given).filter(([key]) => row.query.includes(key)));
  return {
    name,
    method: row.method,
    path: row.path.replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(params[key]!)),
    ...(query ? { query } : {}),
    ...(fill.body !== undefined ? { body: row.request!.parse(fill.body) } : {}),
    idempotencyKey: fill.idempotencyKey,
    notFound: fill.notFound,
    response: row.response as T[N]['response'],
  };
}
