/**
 * Issue 11, defect 4: `--all` and `svc api --paginate` against a service that hands out a fresh
 * nextCursor on every page (cli-contract 6): 10 empty pages in a row that still name a next cursor
 * end the walk (exit 1, after exactly 1 + 10 requests); full pages end it at 10,000 pages.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { hostileService, svcAgainst } from '../support/hostile-cli.js';
import { freshCursorPages } from '../support/hostile-server.js';

const TOKEN = 'svc_live_686f7374696c6570616765730000000b2';
/** A full page: 100 databases, a common page-size ceiling. */
const PER_PAGE = 100;

const hostile = hostileService();
const peaks: string[] = [];
afterAll(() => {
  if (peaks.length) console.info(`peak RSS of the built CLI over 10,000 full pages (MiB):\n  ${peaks.join('\n  ')}`);
});

const svc = async (args: string[]) => {
  const r = await svcAgainst(hostile, TOKEN, args, { timeoutMs: 150_000, rss: true });
  return { ...r, peakMiB: r.peakMiB! };
};

/** The cursors the walk sent, in order ("-" for the first page, which has none). */
const cursorsSent = () => hostile.requestsTo('/databases').map((e) => e.url.searchParams.get('cursor') ?? '-');

describe('empty pages that always name a fresh next cursor', () => {
  it.each([
    ['svc databases list --all', ['databases', 'list', '--all']],
    ['svc databases list --all --json', ['databases', 'list', '--all', '--json']],
    ['svc api /databases --paginate', ['api', '/databases', '--paginate']],
  ])('%s: exit 1 after exactly 11 requests (the first page and 10 empty ones), saying why', async (_name, argv) => {
    hostile.api('GET', '/databases', freshCursorPages('databases-page1', 'databases', 0));
    const r = await svc(argv);
    expect(r.code).toBe(1);
    expect(cursorsSent()).toEqual(['-', ...Array.from({ length: 10 }, (_, i) => `cur_${i + 1}`)]);
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
    hostile.api('GET', '/databases', freshCursorPages('databases-page1', 'databases', (page) => (page === 10 ? 1 : 0)));
    const r = await svc(['databases', 'list', '--all']);
    expect(r.code).toBe(1);
    expect(hostile.requestsTo('/databases')).toHaveLength(20);
    expect(r.stderr).toContain('after 10 empty pages in a row that still named a next cursor (1 items so far)');
  });
});

describe(`full pages (${PER_PAGE} databases each) that never end`, () => {
  it.each([
    ['svc databases list --all', ['databases', 'list', '--all']],
    ['svc api /databases --paginate', ['api', '/databases', '--paginate']],
  ])('%s: exit 1 after exactly 10,000 requests; the peak RSS is reported', async (name, argv) => {
    hostile.api('GET', '/databases', freshCursorPages('databases-page1', 'databases', PER_PAGE));
    const r = await svc(argv);
    expect(r.code).toBe(1);
    expect(hostile.requestsTo('/databases')).toHaveLength(10_000);
    expect(r.stderr).toContain(`error: Stopped following pages after 10000 pages (${10_000 * PER_PAGE} items so far); the service does not end the list.`);
    expect(r.stdout).toBe('');
    peaks.push(`${r.peakMiB.toFixed(1)}  ${name} (${10_000 * PER_PAGE} items held when it stopped)`);
  }, 180_000);
});
