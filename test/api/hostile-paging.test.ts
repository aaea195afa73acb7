/**
 * Issue 11, defect 4, and issue 17, item 4: `--all` and `svc api --paginate` against a service that
 * hands out a fresh nextCursor on every page (cli-contract 6). 10 empty pages in a row that still
 * name a next cursor end the walk (exit 1, after exactly 1 + 10 requests); full pages end it at
 * 10,000 pages. Memory stays bounded on the way: with --json (no --jq) the merged list is written
 * as the pages arrive; a table or --jq holds at most 256 MiB of items, then stops (exit 1,
 * paging_too_large). Before, schema-valid 2 MiB pages took svc to a 4 GB heap and exit 134.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_HELD_ITEM_BYTES } from '../../src/api/paginate.js';
import { hostileService, svcAgainst } from '../support/hostile-cli.js';
import { freshCursorPages, pageItemsJson } from '../support/hostile-server.js';
import { RSS_BUDGET_MIB } from '../support/peak-rss.js';

const TOKEN = 'svc_live_686f7374696c6570616765730000000b2';

/**
 * A held list of 256 MiB of items, as parsed objects about as much again on the heap, plus the page
 * in flight and the collector's slack: 375-490 MiB measured. Without the bound the same runs grow
 * to the 4 GB heap limit and die (exit 134).
 */
const HELD_RSS_MIB = 640;

const hostile = hostileService();
const peaks: string[] = [];
afterAll(() => {
  if (peaks.length) console.info(`peak RSS of the built CLI (MiB):\n  ${peaks.join('\n  ')}`);
});

/**
 * What a run wrote to stdout, seen chunk by chunk: a streamed list is far more than a test should
 * hold. Keeps the first and last bytes and counts `needles` (a needle split across chunks counts).
 */
class StdoutTally {
  bytes = 0;
  head = '';
  tail = '';
  /** Per needle: how often it was seen, and the end of the text so far, one character shorter than it. */
  readonly #seen = new Map<string, { count: number; carry: string }>();

  constructor(needles: string[]) {
    for (const n of needles) this.#seen.set(n, { count: 0, carry: '' });
  }

  readonly take = (chunk: Buffer): void => {
    const text = chunk.toString('latin1');
    this.bytes += chunk.length;
    if (this.head.length < 256) this.head = (this.head + text).slice(0, 256);
    this.tail = (this.tail + text).slice(-256);
    for (const [needle, seen] of this.#seen) {
      const joined = seen.carry + text;
      seen.count += joined.split(needle).length - 1;
      seen.carry = joined.slice(-(needle.length - 1));
    }
  };

  count(needle: string): number {
    return this.#seen.get(needle)!.count;
  }
}

const svc = async (name: string, args: string[], tally?: StdoutTally) => {
  const r = await svcAgainst(hostile, TOKEN, args, { timeoutMs: 150_000, rss: true, onStdout: tally?.take });
  if (tally) expect(tally.count(TOKEN), 'the token on stdout').toBe(0);
  peaks.push(`${r.peakMiB!.toFixed(1)}  ${name}`);
  return { ...r, peakMiB: r.peakMiB! };
};

/** The cursors the walk sent, in order ("-" for the first page, which has none). */
const cursorsSent = () => hostile.requestsTo('/databases').map((e) => e.url.searchParams.get('cursor') ?? '-');

/** How each streamed form opens the document and writes an item's id (the fixture's first database, ids made distinct). */
const STREAMED = [
  {
    name: 'svc databases list --all --json',
    argv: ['databases', 'list', '--all', '--json'],
    opens: '{\n  "databases": [\n    {\n      "id": "db_orders_0",',
    id: '"id": "db_orders_',
    closes: '\n    }\n  ]\n}\n',
  },
  {
    name: 'svc api /databases --paginate',
    argv: ['api', '/databases', '--paginate'],
    opens: '{"databases":[{"id":"db_orders_0",',
    id: '"id":"db_orders_',
    closes: '}]}\n',
  },
];

describe('empty pages that always name a fresh next cursor', () => {
  it.each([
    ['svc databases list --all', ['databases', 'list', '--all']],
    ['svc databases list --all --json', ['databases', 'list', '--all', '--json']],
    ['svc api /databases --paginate', ['api', '/databases', '--paginate']],
  ])('%s: exit 1 after exactly 11 requests (the first page and 10 empty ones), saying why', async (name, argv) => {
    hostile.api('GET', '/databases', freshCursorPages('databases-page1', 'databases', 0));
    const r = await svc(`${name} (empty pages)`, argv);
    expect(r.code).toBe(1);
    expect(cursorsSent()).toEqual(['-', ...Array.from({ length: 10 }, (_, i) => `cur_${i + 1}`)]);
    // A streamed list opens with its first item: there was none.
    expect(r.stdout).toBe('');
    const message = 'Stopped following pages after 10 empty pages in a row that still named a next cursor (0 items so far); the service does not end the list.';
    if (argv.includes('--json')) {
      expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'paging_runaway', message, requestId: 'req_page_11' });
    } else {
      expect(r.stderr).toContain(`error: ${message}`);
      expect(r.stderr).toContain('request id: req_page_11');
    }
  });

  it('a page with items between empty ones starts the count again', async () => {
    // Pages 1-9 empty, page 10 has an item, then empty pages until the walk gives up.
    hostile.api(
      'GET',
      '/databases',
      freshCursorPages('databases-page1', 'databases', (page) => (page === 10 ? 1 : 0)),
    );
    const r = await svc('svc databases list --all (one item among empty pages)', ['databases', 'list', '--all']);
    expect(r.code).toBe(1);
    expect(hostile.requestsTo('/databases')).toHaveLength(20);
    expect(r.stderr).toContain('after 10 empty pages in a row that still named a next cursor (1 items so far)');
  });
});

describe('pages that never end stop at 10,000', () => {
  // Small pages: the cap counts pages, and 10,000 small ones take seconds. Memory is the 2 MiB pages' part below.
  it.each(STREAMED)(
    '$name: the list streamed until then stays unterminated; exit 1 after exactly 10,000 requests',
    async ({ name, argv, opens, id, closes }) => {
      hostile.api('GET', '/databases', freshCursorPages('databases-page1', 'databases', 10));
      const out = new StdoutTally([id, TOKEN]);
      const r = await svc(`${name} (10,000 pages of 10)`, argv, out);
      expect(r.code).toBe(1);
      expect(hostile.requestsTo('/databases')).toHaveLength(10_000);
      expect(r.stderr).toContain('Stopped following pages after 10000 pages (100000 items so far); the service does not end the list.');
      expect(out.head.startsWith(opens)).toBe(true);
      expect(out.count(id)).toBe(100_000);
      expect(out.tail.endsWith(closes)).toBe(false);
      expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
    },
    180_000,
  );

  it('svc databases list --all (a table, held): exit 1 after exactly 10,000 requests, nothing on stdout', async () => {
    // 200,000 databases: well under the 256 MiB a table may hold, so the page cap is what stops it.
    hostile.api('GET', '/databases', freshCursorPages('databases-page1', 'databases', 20));
    const r = await svc('svc databases list --all (10,000 pages of 20, held)', ['databases', 'list', '--all']);
    expect(r.code).toBe(1);
    expect(hostile.requestsTo('/databases')).toHaveLength(10_000);
    expect(r.stderr).toContain('error: Stopped following pages after 10000 pages (200000 items so far); the service does not end the list.');
    expect(r.stdout).toBe('');
    expect(r.peakMiB).toBeLessThan(HELD_RSS_MIB);
  }, 180_000);
});

describe('schema-valid pages of 2 MiB (6,000 databases each)', () => {
  const PER_PAGE = 6_000;
  /**
   * 120 pages: 240 MiB of items, which held would take svc past RSS_BUDGET_MIB on its own (about
   * 450 MiB), while streamed the peak stays flat (measured 125-185 MiB from 30 to 300 pages). Going
   * on to 10,000 pages would move 20 GB over loopback and prove nothing more.
   */
  const PAGES = 120;

  it.each(STREAMED)(
    '$name: the list streamed to its end, in bounded memory',
    async ({ name, argv, opens, id, closes }) => {
      hostile.api('GET', '/databases', freshCursorPages('databases-page1', 'databases', PER_PAGE, { lastPage: PAGES }));
      const out = new StdoutTally([id, TOKEN]);
      const r = await svc(`${name} (${PAGES} pages of 2 MiB)`, argv, out);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(hostile.requestsTo('/databases')).toHaveLength(PAGES);
      expect(out.head.startsWith(opens)).toBe(true);
      expect(out.count(id)).toBe(PAGES * PER_PAGE);
      expect(out.tail.endsWith(closes)).toBe(true);
      expect(out.bytes).toBeGreaterThan(PAGES * 2 * 1024 * 1024);
      expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
    },
    180_000,
  );

  // Each page holds this much of items; the page that passes 256 MiB stops the walk.
  const pageBytes = Buffer.byteLength(pageItemsJson('databases-page1', 'databases', PER_PAGE));
  const stopsAt = Math.floor(MAX_HELD_ITEM_BYTES / pageBytes) + 1;
  const message = `Stopped following pages: the list passed 256 MiB (${(stopsAt - 1) * PER_PAGE} items so far), more than svc holds to print it whole.`;

  it.each([
    ['svc databases list --all (a table)', ['databases', 'list', '--all'], 'Add --json (without --jq)'],
    ['svc databases list --all --jq', ['databases', 'list', '--all', '--jq', '.databases | length'], 'Add --json (without --jq)'],
    ['svc api /databases --paginate --jq', ['api', '/databases', '--paginate', '--jq', '.databases | length'], 'Drop --jq'],
  ])(
    '%s holds the list: exit 1 (paging_too_large) once it passes 256 MiB, in bounded memory',
    async (name, argv, hint) => {
      hostile.api('GET', '/databases', freshCursorPages('databases-page1', 'databases', PER_PAGE));
      const r = await svc(`${name} (2 MiB pages, held)`, argv);
      expect(r.code).toBe(1);
      expect(hostile.requestsTo('/databases')).toHaveLength(stopsAt);
      expect(r.stdout).toBe('');
      if (argv.includes('--jq')) {
        expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'paging_too_large', message, requestId: `req_page_${stopsAt}` });
      } else {
        expect(r.stderr).toContain(`error: ${message}`);
      }
      expect(r.stderr).toContain(hint);
      expect(r.peakMiB).toBeLessThan(HELD_RSS_MIB);
    },
    180_000,
  );
});
