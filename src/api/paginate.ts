import { CliError } from '../errors.js';

/** --all and --paginate stop after this many pages in all, or this many empty pages in a row that still name a next cursor (cli-contract 6). */
export const MAX_PAGES = 10_000;
export const MAX_EMPTY_PAGES = 10;

/**
 * Where the merged document must be held whole (--jq, human tables), at most this much of items
 * (cli-contract 6), measured as the items' compact JSON: what the held document prints and what
 * --jq is handed, whatever whitespace or other fields the pages carried.
 */
export const MAX_HELD_ITEM_BYTES = 256 * 1024 * 1024;

export interface Page {
  body: Record<string, unknown>;
  requestId: string | undefined;
}

export interface Walk {
  /** The first page, already fetched. */
  first: Page;
  /** The page's one list: `databases`, `backupJobs`, ... */
  itemsKey: string;
  /** The cursor the first page was fetched with, if any: handed out again, it ends the walk. */
  startCursor: string | undefined;
  fetchPage: (cursor: string) => Promise<Page>;
  /** Says on stderr that a cursor was handed out twice (the walk stops there, keeping every item so far). */
  warn?: (message: string) => void;
}

/** The merged document's fields besides its items: the first page's, without its cursor (cli-contract 4). */
export function mergedHead(first: Record<string, unknown>): Record<string, unknown> {
  const { nextCursor: _dropped, ...head } = first;
  return head;
}

/**
 * Follows nextCursor from the first page to the end, handing each page's items to `take` as the
 * page arrives (the first page's first) and keeping none itself, so memory is whatever `take`
 * keeps. A cursor handed out twice ends the walk; a service that never ends is a fault (exit 1).
 */
export async function followPages(walk: Walk, take: (items: unknown[], page: Page) => void | Promise<void>): Promise<void> {
  const { first, itemsKey } = walk;
  let items = itemsOf(first.body, itemsKey);
  await take(items, first);
  let total = items.length;
  const seen = new Set<string>(walk.startCursor ? [walk.startCursor] : []);
  let cursor = nextCursor(first.body);
  let pages = 1;
  let emptyInARow = 0;
  while (cursor) {
    if (seen.has(cursor)) {
      walk.warn?.('The service returned a cursor it had already given; stopped paging there.');
      break;
    }
    seen.add(cursor);
    const page = await walk.fetchPage(cursor);
    pages += 1;
    items = itemsOf(page.body, itemsKey);
    await take(items, page);
    total += items.length;
    cursor = nextCursor(page.body);
    emptyInARow = items.length === 0 && cursor ? emptyInARow + 1 : 0;
    if (cursor && (pages >= MAX_PAGES || emptyInARow >= MAX_EMPTY_PAGES)) {
      const why = pages >= MAX_PAGES ? `${MAX_PAGES} pages` : `${MAX_EMPTY_PAGES} empty pages in a row that still named a next cursor`;
      throw new CliError('paging_runaway', `Stopped following pages after ${why} (${total} items so far); the service does not end the list.`, {
        requestId: page.requestId,
      });
    }
  }
}

/**
 * The walk merged into one body held whole: the first page's fields, its `itemsKey` array holding
 * every item, no cursor (cli-contract 4). More than MAX_HELD_ITEM_BYTES of items is exit 1, with
 * `hint` or the default one of paging_too_large.
 */
export async function holdPages(walk: Walk, hint?: string): Promise<Record<string, unknown>> {
  const items: unknown[] = [];
  let held = 0;
  await followPages(walk, (got, page) => {
    held += Buffer.byteLength(JSON.stringify(got));
    if (held > MAX_HELD_ITEM_BYTES) {
      const mib = MAX_HELD_ITEM_BYTES / 1024 / 1024;
      throw new CliError(
        'paging_too_large',
        `Stopped following pages: the list passed ${mib} MiB (${items.length} items so far), more than svc holds to print it whole.`,
        {
          requestId: page.requestId,
          hint,
        },
      );
    }
    // One at a time: push(...got) passes every item as an argument, and a page may hold millions.
    for (const item of got) items.push(item);
  });
  return { ...mergedHead(walk.first.body), [walk.itemsKey]: items };
}

function itemsOf(body: Record<string, unknown>, key: string): unknown[] {
  const items = body[key];
  return Array.isArray(items) ? items : [];
}

function nextCursor(body: Record<string, unknown>): string | undefined {
  const c = body.nextCursor;
  return typeof c === 'string' && c ? c : undefined;
}
