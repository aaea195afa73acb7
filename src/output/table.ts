import Table from 'cli-table3';
import type { Paint } from '../ui/style.js';

/** Plain aligned columns, like `gh` and `heroku`: easy to read and to grep. */
const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
};

/** Cells are already plain text, fitted to the terminal where there is one (output/fit.ts): no wrapping here. */
export function drawTable(header: string[], rows: string[][], paint: Paint): string {
  const t = new Table({
    head: header.map((h) => paint('bold', h)),
    chars: BORDERLESS,
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    wordWrap: false,
  });
  for (const row of rows) t.push(row);
  return t
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}
