import type * as z from '../../zod.js';
import type { Operation } from '../../api/client.js';
import type { PageParams } from '../../api/operations/common.js';
import { followPages, holdPages, mergedHead, type Walk } from '../../api/paginate.js';
import { table, type Block, type Column } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { pageOptions, type PageFlags, type PageOptions } from '../../core/args.js';

export { pageOptions, type PageFlags, type PageOptions };

type PageBody = { nextCursor?: string | null } & Record<string, unknown>;

export interface ListSpec<Item> {
  op: (page: PageParams) => Operation<z.ZodMiniType<PageBody>>;
  itemsKey: string;
  columns: Column<Item>[];
  /** Shown instead of an empty table. */
  empty: string;
  /** Blocks after the table, e.g. proof semantics. */
  after?: (body: Record<string, unknown>) => Block[];
  /** The order of the table's rows (the --json document keeps the service's). */
  order?: (a: Item, b: Item) => number;
}

/** The walk's merged list written to stdout as its pages arrive, pretty or compact (cli-contract 6). */
export async function streamPages(session: Session, walk: Walk, opts: { compact?: boolean } = {}): Promise<void> {
  const merged = session.out.mergedDocument(mergedHead(walk.first.body), walk.itemsKey, opts);
  await followPages(walk, (items) => merged.items(items));
  await merged.end();
}

/**
 * Shared by every list command: one page or --all, one table, a hint when more pages exist. With
 * --json (no --jq), --all writes the merged list as its pages arrive; a table or --jq holds it
 * (cli-contract 6).
 */
export async function runList<Item>(session: Session, page: PageOptions, spec: ListSpec<Item>): Promise<void> {
  const api = await session.api();
  const fetch = async (cursor: string | undefined) => {
    const r = await api.send(spec.op({ limit: page.limit, cursor }));
    return { body: r.data as Record<string, unknown>, requestId: r.requestId };
  };
  const first = await fetch(page.cursor);
  const walk: Walk = {
    first,
    itemsKey: spec.itemsKey,
    startCursor: page.cursor,
    fetchPage: fetch,
    warn: (message) => session.ui.warn(message),
  };
  if (page.all && session.settings.json && session.out.streamsDocuments) {
    await streamPages(session, walk);
    return;
  }
  const body = page.all ? await holdPages(walk) : first.body;
  const items = body[spec.itemsKey] as Item[];
  const rows = spec.order ? [...items].sort(spec.order) : items;
  await session.out.render(body, [table(rows, spec.columns, spec.empty, { headers: page.headers }), ...(spec.after?.(body) ?? [])]);
  const next = body.nextCursor;
  if (!page.all && typeof next === 'string' && next) {
    session.ui.info(`More results: add --cursor ${next}, or --all for every page.`);
  }
}
