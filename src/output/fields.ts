import type { Paint, Style } from '../ui/style.js';
import { displayWidth, plain, wrapWords } from './terminal-text.js';

/** A label/value line of a key/value block; undefined values are left out. */
export type Field = [label: string, value: string | undefined, style?: Style];

/** Narrower than this, a value beside its key reads badly: it goes under the key instead. */
const MIN_VALUE_WIDTH = 20;

const pad = (n: number) => ' '.repeat(n);

/**
 * The lines of a value under its key, from column `under`: wrapped at spaces, a word never split.
 * A word too wide for that column starts at the first one: a digest or URL stays whole, to be copied.
 */
function valueLines(text: string, width: number, under: number): string[] {
  return wrapWords(text, width - under).map((line) => (under + displayWidth(line) <= width ? pad(under) + line : line));
}

/**
 * A key/value block: `label:  value` lines, the values aligned. On a terminal (`width` given) a
 * value that does not fit beside its key goes whole on the line below it, indented; one too long
 * for that wraps at spaces under itself (a hanging indent), or under the key where the column
 * beside it is too narrow. A digest or URL is one word: never split or cut (cli-contract 4).
 * Without a terminal nothing is wrapped.
 */
export function renderFields(items: Field[], title: string | undefined, paint: Paint, width: number | undefined): string {
  const indent = title ? 2 : 0;
  const under = indent + 2;
  const shown = items.filter((f): f is Field & [string, string] => f[1] !== undefined);
  const labelWidth = Math.max(0, ...shown.map(([label]) => displayWidth(label) + 1));
  const valueColumn = indent + labelWidth + 2;
  const lines = shown.flatMap(([label, value, style]) => {
    const text = plain(value);
    const styled = (line: string) => (style ? line.replace(/\S.*$/, (v) => paint(style, v)) : line);
    const beside = (first: string, rest: string[]) => [`${pad(indent)}${paint('dim', `${label}:`.padEnd(labelWidth))}  ${styled(first)}`, ...rest.map(styled)];
    const [first = '', ...rest] = text.split('\n');
    if (width === undefined)
      return beside(
        first,
        rest.map((l) => pad(valueColumn) + l),
      );
    const underKey = () => [`${pad(indent)}${paint('dim', `${label}:`)}`, ...valueLines(text, width, under).map(styled)];
    if (!text.includes('\n')) {
      if (valueColumn + displayWidth(text) <= width) return beside(text, []);
      // Whole on a line of its own beats wrapped beside the key: a digest or URL must stay whole.
      if (under + displayWidth(text) <= width || !/\s/.test(text)) return underKey();
    }
    if (width - valueColumn >= MIN_VALUE_WIDTH) {
      const wrapped = wrapWords(text, width - valueColumn);
      const fitsBeside = wrapped.every((l) => valueColumn + displayWidth(l) <= width);
      // Beside the key, unless a word is too wide for that column or under the key takes fewer lines.
      if (fitsBeside && wrapped.length <= 1 + wrapWords(text, width - under).length) {
        const [head = '', ...tail] = wrapped;
        return beside(
          head,
          tail.map((l) => pad(valueColumn) + l),
        );
      }
    }
    return underKey();
  });
  const heading = title === undefined ? [] : (width === undefined ? [title] : wrapWords(title, width)).map((l) => paint('bold', l));
  return [...heading, ...lines].join('\n');
}
