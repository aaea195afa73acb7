/**
 * Text from the service (names, messages, next actions, codes) must not drive the terminal: ESC
 * (title, clear screen, OSC 52 clipboard writes), BEL, DEL and the rest of C0 and C1 are removed in
 * human output (cli-contract 4); tab and newline stay. --json output is left exact: the serialiser
 * escapes them.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function plain(text: string): string {
  return text.replace(CONTROL, '');
}

/**
 * JSON for stdout or stderr: what JSON.stringify gives, with DEL and the C1 controls (which it
 * leaves raw, and some terminals act on) escaped as \\u00XX too. The parsed value is unchanged.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Display width of a line of plain text: code points, since svc prints no wide glyphs of its own. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const _ of text) width += 1;
  return width;
}

/** `text` cut to `width` columns, its last one an ellipsis when anything was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  return `${[...text].slice(0, width - 1).join('')}…`;
}

/**
 * Lines of at most `width` columns, broken at spaces; a word longer than a line is broken where it
 * must be. Existing newlines are kept.
 */
export function wrapWords(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      if (!line) line = word;
      else if (displayWidth(line) + 1 + displayWidth(word) <= width) line += ` ${word}`;
      else {
        out.push(line);
        line = word;
      }
      while (displayWidth(line) > width) {
        const chars = [...line];
        out.push(chars.slice(0, width).join(''));
        line = chars.slice(width).join('');
      }
    }
    out.push(line);
  }
  return out;
}
