import Table from 'cli-table3';
import type { Paint } from '../ui/style.js';
import type { Column } from './writer.js';

/** Plain aligned columns, like `gh` and `heroku`: easy to read and to grep. */
const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '',
  right: '', 'right-mid': '', middle: '',
};

export function drawTable(rows: unknown[], columns: Column<any>[], paint: Paint): string {
  const t = new Table({
    head: columns.map((c) => paint('bold', c.header)),
    chars: BORDERLESS,
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
  });
  for (const row of rows) t.push(columns.map((c) => c.value(row)));
  return t
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}
