import { stripVTControlCharacters } from 'node:util';

/**
 * Text from the service (names, messages, next actions, codes) must not drive the terminal: ESC
 * (title, clear screen, OSC 52 clipboard writes), BEL, DEL and the rest of C0 and C1 are removed in
 * human output (cli-contract 4); tab and newline stay. --json output is left exact: the serialiser
 * escapes them.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function plain(text: string): string {
  return text.replace(CONTROL, '');
}

/**
 * One line of a terminal, whatever the text holds: control characters removed as in plain(), and a
 * line break shown as the two characters `\n`, so a value cannot start a line of its own (a forged
 * `db_orders: passed` progress line) or split a table's row (cli-contract 7.15).
 */
export function terminalLine(text: string): string {
  return plain(text.replace(/\r\n?|\n/g, '\\n'));
}

/**
 * JSON for stdout or stderr: what JSON.stringify gives, with DEL and the C1 controls (which it
 * leaves raw, and some terminals act on) escaped as \\u00XX too. The parsed value is unchanged.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return terminalSafe(JSON.stringify(value, null, indent));
}

/** JSON text as terminalSafeJson leaves it: DEL and the C1 controls escaped. */
export function terminalSafe(json: string): string {
  return json.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Display width of a line of text: code points, colour codes left out, since svc prints no wide glyphs of its own. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const _ of stripVTControlCharacters(text)) width += 1;
  return width;
}

/** `text` cut to `width` columns, its last one an ellipsis when anything was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  return `${[...text].slice(0, width - 1).join('')}…`;
}

/**
 * Lines of at most `width` columns, broken at spaces (the spaces between words on a line are kept,
 * so columns stay aligned); a paragraph's leading indent is kept, and its later lines are indented
 * by `hanging` more. A word is never split, so that a digest, URL or path can still be copied
 * whole: one too wide for its line gets a line of its own, from the first column when the indent
 * leaves no room for it. Existing newlines are kept.
 */
export function wrapWords(text: string, width: number, hanging = ''): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    const lead = /^ */.exec(paragraph)![0];
    const next = lead + hanging;
    let line: string | undefined;
    // Words and the runs of spaces after them: ['word', '  ', 'word', ...].
    const parts = paragraph.slice(lead.length).trimEnd().split(/( +)/);
    for (let i = 0; i < parts.length; i += 2) {
      const word = parts[i]!;
      const space = parts[i - 1] ?? '';
      if (line === undefined) line = lead + word;
      else if (displayWidth(line) + displayWidth(space) + displayWidth(word) <= width) line += space + word;
      else {
        out.push(line);
        line = displayWidth(next) + displayWidth(word) <= width ? next + word : word;
      }
    }
    out.push(line ?? '');
  }
  return out;
}
