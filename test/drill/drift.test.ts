/**
 * no_drift's rules (cli-contract 9.17) as a table: which shrink fails, which passes, what the detail
 * names; and --max-shrink's syntax. The end-to-end runs are in drill-drift.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_DRIFT, noDrift, parseShare } from '../../src/drill/drift.js';
import { fingerprintOf } from '../../src/drill/fingerprint.js';

const fp = (tables: Record<string, number>, digest = 'a'.repeat(64)) =>
  fingerprintOf(
    Object.entries(tables).map(([table, rows]) => ({ table, rows, sizeBytes: 8192 })),
    digest,
  );

describe('noDrift', () => {
  const before = fp({ 'public.orders': 5000, 'public.customers': 1000, 'public.tiny': 10 });

  it.each([
    ['unchanged', { 'public.orders': 5000, 'public.customers': 1000, 'public.tiny': 10 }, true],
    ['grown', { 'public.orders': 9000, 'public.customers': 1000, 'public.tiny': 10 }, true],
    ['a large table lost exactly half (not more)', { 'public.orders': 2500, 'public.customers': 1000, 'public.tiny': 10 }, true],
    ['a large table lost more than half', { 'public.orders': 2499, 'public.customers': 1000, 'public.tiny': 10 }, false],
    ['a table under --drift-min-rows emptied', { 'public.orders': 5000, 'public.customers': 1000, 'public.tiny': 0 }, true],
    ['a table under --drift-min-rows gone', { 'public.orders': 5000, 'public.customers': 1000 }, false],
    ['customers (exactly 1000 rows) lost 90%', { 'public.orders': 5000, 'public.customers': 100, 'public.tiny': 10 }, false],
  ] as const)('%s', (_, now, passed) => {
    expect(noDrift(before, fp(now), DEFAULT_DRIFT).passed).toBe(passed);
  });

  it('the total alone can fail: many small tables that each lost most of their rows', () => {
    const small = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`public.t${i}`, 900]));
    const shrunk = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`public.t${i}`, 100]));
    const r = noDrift(fp(small), fp(shrunk), DEFAULT_DRIFT);
    expect(r.passed).toBe(false);
    expect(r.detail).toBe('1 drift(s) against the baseline (lost more than 50%, or missing): total: 18,000 row(s) in the baseline, 2,000 now (-89%)');
  });

  it('names each table with both counts, and lists schema changes that pass', () => {
    const r = noDrift(before, fp({ 'public.orders': 500, 'public.customers': 1000, 'public.notes': 3 }, 'b'.repeat(64)), { minRows: 1000, maxShrink: 0.5 });
    expect(r.detail).toBe(
      "3 drift(s) against the baseline (lost more than 50%, or missing): public.orders: 5,000 row(s) in the baseline, 500 now (-90%); public.tiny: 10 row(s) in the baseline, table not found; total: 6,010 row(s) in the baseline, 1,503 now (-75%); schema changes (pass): new table(s): public.notes; the schema changed (its digest differs from the baseline's)",
    );
    expect(r.message).toMatch(/^The restored data shrank against the baseline: 3 drift\(s\)/);
  });
});

describe('--max-shrink', () => {
  it.each([
    ['50%', 0.5],
    ['12.5%', 0.125],
    ['100%', 1],
  ] as const)('%s', (raw, share) => expect(parseShare(raw, '--max-shrink')).toBe(share));
  it.each(['0%', '50', '101%', '-5%', 'half'])('%s is exit 2', (raw) => expect(() => parseShare(raw, '--max-shrink')).toThrow(/Invalid --max-shrink/));
});
