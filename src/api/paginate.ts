import { CliError } from '../errors.js';

/** --all and --paginate stop after this many pages in all, or this many empty pages in a row that still name a next cursor (cli-contract 6). */
export const MAX_PAGES = 10_000;
export const MAX_EMPTY_PAGES = 10;

export interface Page {
  body: Record<string, unknown>;
  requestId: string | undefined;
}

/**
 * Follows nextCursor from `first` to the end and merges the pages into one body whose `itemsKey`
 * array holds every item and which carries no cursor (cli-contract 4). A cursor handed out twice
 * ends the walk; a service that never ends is a fault (exit 1), and memory never grows past the
 * merged items.
 */
export async function followPages(
  first: Page,
  itemsKey: string,
  startCursor: string | undefined,
  fetchPage: (cursor: string) => Promise<Page>,
  hooks: { onRepeatedCursor?: () => void } = {},
): Promise<Record<string, unknown>> {
  const items: unknown[] = [...itemsOf(first.body, itemsKey)];
  const seen = new Set<string>(startCursor ? [startCursor] : []);
  let cursor = nextCursor(first.body);
  let pages = 1;
  let emptyInARow = 0;
  while (cursor) {
    if (seen.has(cursor)) {
      hooks.onRepeatedCursor?.();
      break;
    }
    seen.add(cursor);
    const page = await fetchPage(cursor);
    pages += 1;
    const got = itemsOf(page.body, itemsKey);
    items.push(...got);
    cursor = nextCursor(page.body);
    emptyInARow = got.length === 0 && cursor ? emptyInARow + 1 : 0;
    if (cursor && (pages >= MAX_PAGES || emptyInARow >= MAX_EMPTY_PAGES)) {
      const why = pages >= MAX_PAGES ? `${MAX_PAGES} pages` : `${MAX_EMPTY_PAGES} empty pages in a row that still named a next cursor`;
      throw new CliError('paging_runaway', `Stopped following pages after ${why} (${items.length} items so far); the service does not end the list.`, {
        requestId: page.requestId,
      });
    }
  }
  const { nextCursor: _dropped, ...rest } = first.body;
  return { ...rest, [itemsKey]: items };
}

function itemsOf(body: Record<string, unknown>, key: string): unknown[] {
  const items = body[key];
  return Array.isArray(items) ? items : [];
}

function nextCursor(body: Record<string, unknown>): string | undefined {
  const c = body.nextCursor;
  return typeof c === 'string' && c ? c : undefined;
}
