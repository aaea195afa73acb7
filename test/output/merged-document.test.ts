/**
 * Issue 17, item 4: --all --json and --paginate write the merged list as its pages arrive
 * (cli-contract 6). What they write must be the very text the held document prints, byte for byte:
 * scripts cannot tell the two apart, except that the stream never holds the list.
 */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { followPages, holdPages, mergedHead, type Page, type Walk } from '../../src/api/paginate.js';
import { Writer } from '../../src/output/writer.js';
import { SecretScrubber } from '../../src/secrets.js';

const paint = (_style: unknown, text: string) => text;

/** `width`: stdout is a terminal that many columns wide. `secrets`: svc's scrubber, as a session wires it. */
function writerOn(stdout: Writable, width?: number, secrets?: SecretScrubber): Writer {
  const scrub = secrets
    ? { scrubDocument: <T>(d: T) => secrets.scrubDocument(d), mayChangeDocument: (json: string) => secrets.mayChangeDocument(json) }
    : { scrubDocument: <T>(d: T) => d };
  return new Writer(stdout, { json: true, paint, notice: () => {}, width, ...scrub });
}

function collected(): { stdout: PassThrough; text: () => string } {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => chunks.push(c));
  return { stdout, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** A walk over `bodies`: the first is the first page, each names the next by its index. */
function walkOver(bodies: Record<string, unknown>[], itemsKey: string): Walk {
  const page = (i: number): Page => ({ body: bodies[i]!, requestId: `req_${i}` });
  return { first: page(0), itemsKey, startCursor: undefined, fetchPage: async (cursor) => page(Number(cursor.slice(1))) };
}

/** `pages` (lists of items) as bodies: `head`'s fields around the list, a cursor to the next page but on the last. */
function pagesOf(head: Record<string, unknown>, itemsKey: string, pages: unknown[][]): Record<string, unknown>[] {
  return pages.map((items, i) => ({ ...head, [itemsKey]: items, nextCursor: i + 1 < pages.length ? `p${i + 1}` : null }));
}

async function streamed(bodies: Record<string, unknown>[], itemsKey: string, compact = false, width?: number, secrets?: SecretScrubber): Promise<string> {
  const out = collected();
  const merged = writerOn(out.stdout, width, secrets).mergedDocument(mergedHead(bodies[0]!), itemsKey, { compact });
  await followPages(walkOver(bodies, itemsKey), (items) => merged.items(items));
  await merged.end();
  return out.text();
}

async function held(bodies: Record<string, unknown>[], itemsKey: string, width?: number, secrets?: SecretScrubber): Promise<string> {
  const out = collected();
  await writerOn(out.stdout, width, secrets).document(await holdPages(walkOver(bodies, itemsKey)));
  return out.text();
}

const db = (id: string) => ({ id, name: `${id}-prod`, state: 'active', retentionPolicyDays: 30, lastSuccessfulBackupAt: null });

const shapes: Array<[string, Record<string, unknown>[], string]> = [
  ['API v1 pages, one of them empty', pagesOf({}, 'databases', [[db('a'), db('b')], [db('c')], [], [db('d')]]), 'databases'],
  ['one page, no items', pagesOf({}, 'databases', [[]]), 'databases'],
  ['items on the last page only', pagesOf({}, 'databases', [[], [], [db('z')]]), 'databases'],
  [
    'fields before and after the list, nested values, a key that orders as an integer',
    pagesOf({ meta: { filters: [1, { y: 'z' }], empty: {}, none: [] }, 10: 'ten' }, 'evidence', [[db('a')], [db('b')]]).map((b) => ({ ...b, total: 2 })),
    'evidence',
  ],
  [
    'items of every JSON kind, with newlines, C1 controls and wide text in strings',
    pagesOf({ note: 'line\none \u009b31m' }, 'things', [
      ['a string', 12.5, null, true],
      [[], {}, [[1, [2]], { a: { b: [] } }], 'tab\tnew\nline \u0085 \u007f ü 漢字 😀'],
    ]),
    'things',
  ],
];

describe('the merged list written as its pages arrive', () => {
  it.each(shapes)('%s: the same bytes as the held document', async (_name, bodies, key) => {
    const whole = await held(bodies, key);
    expect(await streamed(bodies, key)).toBe(whole);
    // The held text is the pretty document, with the first page's fields and no cursor.
    const parsed = JSON.parse(whole) as Record<string, unknown>;
    expect(parsed).toEqual({ ...mergedHead(bodies[0]!), [key]: bodies.flatMap((b) => b[key] as unknown[]) });
    expect(whole.split('\n')[1]).toMatch(/^ {2}"/);
  });

  it.each(shapes)('%s: on a terminal 32 columns wide, the same bytes as the held document, which fits it and parses the same', async (_name, bodies, key) => {
    const whole = await held(bodies, key, 32);
    expect(await streamed(bodies, key, false, 32)).toBe(whole);
    expect(JSON.parse(whole)).toEqual(JSON.parse(await held(bodies, key)));
    for (const line of whole.split('\n')) if (!/^ *"(?:[^"\\]|\\.)*",?$/.test(line)) expect(line.length, line).toBeLessThanOrEqual(32);
  });

  it.each(shapes)('%s: compact, it is one line of the same document', async (_name, bodies, key) => {
    const text = await streamed(bodies, key, true);
    expect(text.indexOf('\n')).toBe(text.length - 1);
    expect(JSON.parse(text)).toEqual(JSON.parse(await held(bodies, key)));
    // What a script got from `svc api --paginate` before it streamed: JSON.stringify of the merged body.
    const merged = await holdPages(walkOver(bodies, key));
    if (!/[\u007f-\u009f]/.test(JSON.stringify(merged))) expect(text).toBe(`${JSON.stringify(merged)}\n`);
    else expect(text).not.toMatch(/[\u007f-\u009f]/);
  });

  it("with svc's scrubber: a secret on one item of a long page is removed, and every other byte is the held document", async () => {
    const token = 'svc_live_0123456789abcdef0123456789abcdef';
    const secrets = new SecretScrubber();
    secrets.add(token);
    const page = (n: number) => Array.from({ length: 500 }, (_, i) => db(`db_${n}_${i}`));
    const echoed: Array<Record<string, unknown>> = page(2);
    echoed[250] = { ...echoed[250]!, note: `echo ${token}`, lockToken: 'lk_anything', target: 'postgresql://app:hunter2@db/x' };
    const bodies = pagesOf({}, 'databases', [page(1), echoed, page(3)]);
    for (const [compact, width] of [
      [false, undefined],
      [true, undefined],
      [false, 40],
    ] as const) {
      const text = await streamed(bodies, 'databases', compact, width, secrets);
      expect(text).not.toMatch(/svc_live_|lk_anything|hunter2/);
      expect(text).toContain('"lockToken":');
      if (!compact) expect(text).toBe(await held(bodies, 'databases', width, secrets));
      const items = (JSON.parse(text) as { databases: Array<Record<string, unknown>> }).databases;
      expect(items).toHaveLength(1500);
      expect(items[750]).toMatchObject({ id: 'db_2_250', note: 'echo [redacted]', lockToken: '[redacted]', target: 'postgresql://app:[redacted]@db/x' });
      expect(items[749]).toEqual(db('db_2_249'));
    }
  });

  it('waits for a slow stdout: no more than a page is ever queued in memory', async () => {
    // A consumer that takes 1 ms per 4 KiB, like `svc ... | slow-reader`.
    let queuedPeak = 0;
    const stdout = new Writable({
      highWaterMark: 4096,
      write(_chunk, _enc, done) {
        setTimeout(done, 1);
      },
    });
    const page = Array.from({ length: 40 }, (_, i) => db(`db_${i}`));
    const pageBytes = JSON.stringify(page, null, 2).length;
    const bodies = pagesOf(
      {},
      'databases',
      Array.from({ length: 50 }, () => page),
    );
    const merged = writerOn(stdout).mergedDocument({}, 'databases');
    await followPages(walkOver(bodies, 'databases'), async (items) => {
      await merged.items(items);
      queuedPeak = Math.max(queuedPeak, stdout.writableLength);
    });
    await merged.end();
    expect(queuedPeak).toBeLessThan(2 * pageBytes);
  });
});
