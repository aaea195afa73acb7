import { displayWidth, truncate } from './terminal-text.js';

/** How a table's column gives way on a terminal too narrow for the table (the spec lives beside each command). */
export interface ColumnFit {
  header: string;
  /** A shorter header, taken before anything else gives way. */
  short?: string;
  /** Free text that may be shortened with …; ids, states, figures and digests never are. */
  shrink?: boolean;
  /** May be left out: the column with the lowest number goes first. Without it the column always stays. */
  drop?: number;
}

export interface FittedTable {
  /** The indices of the columns kept, in order. */
  kept: number[];
  header: string[];
  rows: string[][];
}

/** A shortened column keeps at least this many columns, or its header's width. */
const MIN_WIDTH = 8;

/**
 * The table as it fits `width` terminal columns (cli-contract 4): while it is too wide, first
 * headers are shortened, then the least useful columns are left out, then free-text columns are
 * shortened with …, the widest first.
 * Undefined when even that does not fit: ids and states are never cut, so the writer shows such a
 * table another way.
 */
export function fitTable(columns: ColumnFit[], rows: string[][], width: number, gap: number): FittedTable | undefined {
  const header = columns.map((c) => c.header);
  const cellWidth = rows.length ? columns.map((_, i) => Math.max(...rows.map((r) => displayWidth(r[i] ?? '')))) : columns.map(() => 0);
  const natural = (i: number) => Math.max(displayWidth(header[i]!), cellWidth[i]!);
  const floor = (i: number) => Math.min(natural(i), Math.max(MIN_WIDTH, displayWidth(header[i]!)));
  let kept = columns.map((_, i) => i);
  const total = (widths: (i: number) => number) => kept.reduce((sum, i) => sum + widths(i), 0) + gap * (kept.length - 1);
  const fits = () => total(natural) <= width;

  const shorter = columns
    .map((c, i) => ({ i, saves: c.short === undefined ? 0 : natural(i) - Math.max(displayWidth(c.short), cellWidth[i]!) }))
    .filter((s) => s.saves > 0)
    .sort((a, b) => b.saves - a.saves);
  for (const { i } of shorter) {
    if (fits()) break;
    header[i] = columns[i]!.short!;
  }

  const droppable = kept.filter((i) => columns[i]!.drop !== undefined).sort((a, b) => columns[a]!.drop! - columns[b]!.drop!);
  for (const i of droppable) {
    if (fits()) break;
    // Dropping a free-text column to keep its value whole makes no sense when shortening it would do.
    if (columns[i]!.shrink && total((k) => (k === i ? floor(k) : natural(k))) <= width) break;
    kept = kept.filter((k) => k !== i);
  }

  const widths = new Map(kept.map((i) => [i, natural(i)]));
  const current = (i: number) => widths.get(i)!;
  while (total(current) > width) {
    let widest = -1;
    for (const i of kept) if (columns[i]!.shrink && current(i) > floor(i) && (widest < 0 || current(i) > current(widest))) widest = i;
    if (widest < 0) return undefined;
    // One column at a time from the widest, so shortened columns end up about as wide as each other.
    widths.set(widest, current(widest) - 1);
  }
  return {
    kept,
    header: kept.map((i) => header[i]!),
    rows: rows.map((row) => kept.map((i) => (columns[i]!.shrink ? truncate(row[i] ?? '', current(i)) : (row[i] ?? '')))),
  };
}
