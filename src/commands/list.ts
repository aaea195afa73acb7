import type { z } from 'zod';
import type { Operation } from '../api/client.js';
import type { PageParams } from '../api/operations.js';
import { fetchPages } from '../api/paginate.js';
import type { Block, Column } from '../output/writer.js';
import { table } from '../output/writer.js';
import type { Session } from '../session.js';
import { pageParams, type PageFlags } from './args.js';

export interface ListSpec<Item> {
  op: (page: PageParams) => Operation<z.ZodType<{ nextCursor?: string | null } & Record<string, unknown>>>;
  itemsKey: string;
  columns: Column<Item>[];
  /** Shown instead of an empty table. */
  empty: string;
  /** Blocks after the table, e.g. proof semantics. */
  after?: (body: Record<string, unknown>) => Block[];
}

/** Shared by every list command: --limit/--cursor/--all, one table, a hint when more pages exist. */
export async function runList<Item>(session: Session, flags: PageFlags, spec: ListSpec<Item>): Promise<void> {
  const page = pageParams(flags);
  const api = await session.api();
  const result = await fetchPages(api, spec.op, spec.itemsKey, page, {
    onRepeatedCursor: () => session.ui.warn('The service returned a cursor it had already given; stopped paging there.'),
  });
  const body = result.data as Record<string, unknown>;
  const items = body[spec.itemsKey] as Item[];
  session.out.render(body, [table(items, spec.columns, spec.empty), ...(spec.after?.(body) ?? [])]);
  const next = body.nextCursor;
  if (!page.all && typeof next === 'string' && next) {
    session.ui.info(`More results: add --cursor ${next}, or --all for every page.`);
  }
}

