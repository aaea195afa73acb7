import type { ApiClient } from '../../api/client.js';
import type { Walk } from '../../api/paginate.js';
import { CliError, ContractError } from '../../errors.js';
import type { Session } from '../../session.js';

/** The same request for the page at `cursor` (replacing any cursor the path gave). */
function pageUrl(first: URL, cursor: string): string {
  const url = new URL(first.href);
  url.searchParams.set('cursor', cursor);
  return url.href;
}

export interface Received {
  status: number;
  text: string;
  requestId: string | undefined;
  path: string;
  document: unknown;
}

export async function send(api: ApiClient, m: 'GET' | 'POST', url: string, body: unknown, key: string | undefined): Promise<Received> {
  const res = await api.sendRaw(m, url, body, key, 'svc api');
  if (res.status === 204) return { ...res, document: undefined };
  try {
    return { ...res, document: JSON.parse(res.text) as unknown };
  } catch {
    throw new ContractError(`The response of ${m} ${res.path} (HTTP ${res.status}) is not JSON.`, res.requestId);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * --paginate: the items of a page are its one array-valued property (`databases`, `backupJobs`,
 * `evidence`, ... in API v1), merged as --all merges them. A first page without that one list and
 * without a next cursor has nothing to merge: undefined, and it is printed as it is. A page that
 * names a next cursor but has no array, or several, cannot be merged without guessing: that is
 * exit 1, and the first page's request id.
 */
export function pageWalk(api: ApiClient, url: URL, first: Received, session: Session): Walk | undefined {
  const body = first.document;
  if (!isObject(body)) return undefined;
  const arrays = Object.keys(body).filter((k) => Array.isArray(body[k]));
  const hasNext = typeof body.nextCursor === 'string' && body.nextCursor !== '';
  if (arrays.length !== 1) {
    if (!hasNext) return undefined;
    const found = arrays.length === 0 ? 'no array' : `${arrays.length} arrays (${arrays.join(', ')})`;
    throw new CliError(
      'paginate_unmergeable',
      `--paginate: GET ${first.path} names a next cursor, but its body has ${found}, so there is no one list to merge the pages into.`,
      { requestId: first.requestId },
    );
  }
  return {
    first: { body, requestId: first.requestId },
    itemsKey: arrays[0]!,
    startCursor: url.searchParams.get('cursor') ?? undefined,
    fetchPage: async (cursor) => {
      const page = await send(api, 'GET', pageUrl(url, cursor), undefined, undefined);
      if (!isObject(page.document)) throw new ContractError(`--paginate: a page of GET ${page.path} is not a JSON object.`, page.requestId);
      return { body: page.document, requestId: page.requestId };
    },
    warn: (message) => session.ui.warn(message),
  };
}
