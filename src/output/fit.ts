import { displayWidth, truncate } from './terminal-text.js';

/** A shortened column keeps at least this many columns, or its header's width. */
const MIN_WIDTH = 8;

/**
 * Cells that fit `width` terminal columns: while the table is too wide, the widest shrinkable
 * (free-text) column is shortened, its cut values ending in …. Other columns are never cut: when
 * only they remain too wide, the table is left as it is rather than lose an id or a state.
 */
export function fitColumns(header: string[], rows: string[][], shrinkable: boolean[], width: number, gap: number): string[][] {
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const total = () => widths.reduce((a, b) => a + b, 0) + gap * (widths.length - 1);
  const floor = (i: number) => Math.max(MIN_WIDTH, displayWidth(header[i] ?? ''));
  while (total() > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (shrinkable[i] && widths[i]! > floor(i) && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) break;
    // One column at a time from the widest, so shortened columns end up about as wide as each other.
    widths[widest]! -= 1;
  }
  return rows.map((row) => row.map((cell, i) => (shrinkable[i] ? truncate(cell, widths[i]!) : cell)));
}
