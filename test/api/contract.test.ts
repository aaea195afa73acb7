/**
 * Every page of --all is validated item by item (cli-contract 6). From a schema's second parse on,
 * svc validates with zod's compiled parser: a later page must be refused, and kept, exactly as the
 * first page would be.
 */
import { describe, expect, it } from 'vitest';
import { parseResponse } from '../../src/api/contract.js';
import { listDatabasesResponse } from '../../src/api/schemas/databases.js';
import { ContractError } from '../../src/errors.js';
import { fixture } from '../support/fixtures.js';

type Page = { databases: Array<Record<string, unknown>>; nextCursor?: string | null };
const page = (): Page => fixture('databases-page1');

/** A page with six faults (one more than a message names), a field svc does not know, and one item's fields in another order. */
function brokenPage(): Page {
  const p = page();
  const [a, b] = p.databases as [Record<string, unknown>, Record<string, unknown>];
  Object.assign(a, { state: 'melting', retentionPolicyDays: 0, createdAt: 'last Tuesday', provider: 'mysql', extra: { kept: true } });
  delete b.name;
  b.dataResidency = 'mars';
  return p;
}

function refusal(body: unknown): string {
  try {
    parseResponse(listDatabasesResponse, body, 'listDatabases (GET /databases)', 'req_1');
  } catch (error) {
    expect(error).toBeInstanceOf(ContractError);
    return (error as Error).message;
  }
  throw new Error('the page was not refused');
}

describe('a schema parsed page after page', () => {
  it('refuses a bad page with the same message on the first parse and on the hundredth', () => {
    const first = refusal(brokenPage());
    expect(first).toContain('does not match the API contract: databases[0].provider:');
    expect(first).toContain('(+1 more)');
    for (let i = 0; i < 100; i++) parseResponse(listDatabasesResponse, page(), 'listDatabases', 'req_2');
    expect(refusal(brokenPage())).toBe(first);
  });

  it('keeps an item as the first parse does: the schema order of its fields, unknown fields after them', () => {
    const reordered = (): Page => {
      const p = page();
      p.databases = p.databases.map((d) => ({ extra: [1, { y: 'z' }], ...Object.fromEntries(Object.entries(d).reverse()) }));
      return p;
    };
    const texts = Array.from({ length: 3 }, () => JSON.stringify(parseResponse(listDatabasesResponse, reordered(), 'listDatabases', 'req_3')));
    expect(new Set(texts).size).toBe(1);
    const item = (JSON.parse(texts[0]!) as Page).databases[0]!;
    expect(Object.keys(item).slice(0, 3)).toEqual(['id', 'organizationId', 'name']);
    expect(Object.keys(item).at(-1)).toBe('extra');
  });
});
