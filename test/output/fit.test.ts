/**
 * How a table gives way on a narrow terminal (cli-contract 4, v3): shorter headers first, then the
 * least useful columns, then free text shortened with …; ids and states never.
 */
import { describe, expect, it } from 'vitest';
import { fitTable, type ColumnFit } from '../../src/output/fit.js';

const COLUMNS: ColumnFit[] = [
  { header: 'ID' },
  { header: 'NAME', shrink: true },
  { header: 'STATE' },
  { header: 'REGION', drop: 1 },
  { header: 'LAST COMPLETED BACKUP', short: 'LAST BACKUP', drop: 2 },
];
const ROWS = [
  ['db_orders', 'orders production', 'active', 'eu', '5h ago'],
  ['db_billing', 'billing', 'degraded', 'us', 'never'],
];
/** The width of the table as drawn: its columns as wide as their widest cell, two apart. */
function widthOf(t: { header: string[]; rows: string[][] }): number {
  const all = [t.header, ...t.rows];
  const widths = t.header.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  return widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
}

describe('fitTable', () => {
  it('leaves a table that fits as it is', () => {
    expect(fitTable(COLUMNS, ROWS, 100, 2)).toEqual({ kept: COLUMNS.map((_, i) => i), header: COLUMNS.map((c) => c.header), rows: ROWS });
  });

  it('shortens a header before it leaves anything out', () => {
    // Natural: 10 + 17 + 8 + 6 + 21 + 8 = 70; with LAST BACKUP: 60.
    const t = fitTable(COLUMNS, ROWS, 62, 2)!;
    expect(t.header).toEqual(['ID', 'NAME', 'STATE', 'REGION', 'LAST BACKUP']);
    expect(t.rows).toEqual(ROWS);
  });

  it('then leaves out the least useful column first, and shortens no value while one can go', () => {
    const t = fitTable(COLUMNS, ROWS, 55, 2)!;
    expect(t.header).toEqual(['ID', 'NAME', 'STATE', 'LAST BACKUP']);
    expect(t.rows[0]).toEqual(['db_orders', 'orders production', 'active', '5h ago']);
    expect(widthOf(t)).toBeLessThanOrEqual(55);
  });

  it('then shortens free text with …, never an id or a state', () => {
    const t = fitTable(COLUMNS, ROWS, 36, 2)!;
    expect(t.header).toEqual(['ID', 'NAME', 'STATE']);
    // 10 + 2 + 14 + 2 + 8: NAME gets what the id and the state leave.
    expect(t.rows).toEqual([
      ['db_orders', 'orders produc…', 'active'],
      ['db_billing', 'billing', 'degraded'],
    ]);
    expect(widthOf(t)).toBeLessThanOrEqual(36);
  });

  it('shortens a droppable free-text column where that is enough, rather than leave it out', () => {
    const columns: ColumnFit[] = [{ header: 'NAME' }, { header: 'TOKEN' }, { header: 'PURPOSE', shrink: true, drop: 1 }];
    const rows = [['full', 'svc_sandbox_0123456789', 'every scope, for demos and scripts']];
    expect(fitTable(columns, rows, 50, 2)!.rows[0]).toEqual(['full', 'svc_sandbox_0123456789', 'every scope, for de…']);
    expect(fitTable(columns, rows, 30, 2)!.header).toEqual(['NAME', 'TOKEN']);
  });

  it('gives up (undefined) rather than cut an id or a state', () => {
    expect(fitTable(COLUMNS, ROWS, 20, 2)).toBeUndefined();
  });
});
