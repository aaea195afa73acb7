import type { z } from 'zod';
import type { ApiClient, ApiResult, Operation } from './client.js';
import type { PageParams } from './operations.js';

type PageBody = { nextCursor?: string | null | undefined } & Record<string, unknown>;

/**
 * Fetches one page, or with `all` follows nextCursor to the end and merges the pages into one body
 * whose `itemsKey` array holds every item and which carries no cursor (cli-contract 4).
 * A cursor the service hands out twice ends the walk instead of looping forever.
 */
export async function fetchPages<S extends z.ZodType<PageBody>>(
  client: ApiClient,
  makeOp: (page: PageParams) => Operation<S>,
  itemsKey: string,
  page: PageParams & { all?: boolean },
  hooks: { onRepeatedCursor?: () => void } = {},
): Promise<ApiResult<z.infer<S>>> {
  const first = await client.send(makeOp({ limit: page.limit, cursor: page.cursor }));
  if (!page.all) return first;

  const items = [...(first.data[itemsKey] as unknown[])];
  const seen = new Set<string>(page.cursor ? [page.cursor] : []);
  let cursor = first.data.nextCursor ?? undefined;
  while (cursor) {
    if (seen.has(cursor)) {
      hooks.onRepeatedCursor?.();
      break;
    }
    seen.add(cursor);
    const next = await client.send(makeOp({ limit: page.limit, cursor }));
    items.push(...(next.data[itemsKey] as unknown[]));
    cursor = next.data.nextCursor ?? undefined;
  }
  const { nextCursor: _dropped, ...rest } = first.data;
  return { ...first, data: { ...rest, [itemsKey]: items } as z.infer<S> };
}
