import { displayWidth, terminalSafeJson } from './terminal-text.js';

const pad = (n: number) => ' '.repeat(n);

function withComma(lines: string[], comma: boolean): string[] {
  return comma ? [...lines.slice(0, -1), `${lines.at(-1)},`] : lines;
}

/**
 * The value's lines as JSON.stringify(value, null, indent) lays them out, each line's indentation
 * included, except that a member whose value does not fit beside its key within `width` columns
 * goes on the next line, one level deeper.
 */
function layout(value: unknown, depth: number, indent: number, width: number): string[] {
  const inner = pad((depth + 1) * indent);
  const close = pad(depth * indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return ['[]'];
    const items = value.map((item) => layout(item, depth + 1, indent, width));
    return ['[', ...items.flatMap(([first = '', ...rest], i) => withComma([inner + first, ...rest], i < items.length - 1)), `${close}]`];
  }
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value);
    if (members.length === 0) return ['{}'];
    const blocks = members.map(([key, member]) => {
      const [first = '', ...rest] = layout(member, depth + 1, indent, width);
      const beside = `${inner}${terminalSafeJson(key)}: ${first}`;
      // An object or array opens beside its key whatever its width: its own members are fitted.
      if (rest.length > 0 || displayWidth(beside) <= width) return [beside, ...rest];
      return [`${inner}${terminalSafeJson(key)}:`, `${inner}${pad(indent)}${first}`];
    });
    return ['{', ...blocks.flatMap((lines, i) => withComma(lines, i < blocks.length - 1)), `${close}}`];
  }
  return [terminalSafeJson(value)];
}

/**
 * Pretty JSON for a terminal `width` columns wide, its lines to be indented by `column` more (an
 * item of a streamed list): laid out as JSON.stringify(value, null, indent) would, but a member
 * whose value does not fit beside its key goes on the next line, one level deeper. Only the
 * whitespace between tokens differs, so the text parses to the same value; a single value wider
 * than the terminal is left whole.
 */
export function fittedJson(value: unknown, indent: number, width: number, column = 0): string {
  // Plain JSON values, as JSON.stringify would see them (toJSON applied, undefined members left out).
  const normal = JSON.parse(JSON.stringify(value) ?? 'null') as unknown;
  return layout(normal, 0, indent, width - column).join('\n');
}
