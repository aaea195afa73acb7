/**
 * What a terminal of a given width shows for the bytes a program wrote to it, as xterm.js's
 * headless terminal emulates it: for telling which lines were wider than the terminal (the
 * terminal wrapped them), spinner and progress frames included, however briefly they were shown.
 */
import xterm from '@xterm/headless';

export interface Screen {
  /** The lines as the program wrote them: rows the terminal wrapped are joined to the row before. */
  lines: string[];
  /**
   * Every line wider than the terminal, at any moment: a spinner frame later redrawn counts too.
   * Each as it stood when the terminal wrapped it.
   */
  overflows: string[];
}

/** A terminal's own line wrap only happens while text is printed: checking after each run of plain text catches every one. */
const BOUNDARY = /(?=[\r\n\x1b])/;

function logicalLine(buffer: xterm.IBuffer, row: number): string {
  let first = row;
  while (first > 0 && buffer.getLine(first)?.isWrapped) first--;
  let text = '';
  for (let i = first; i < buffer.length; i++) {
    const line = buffer.getLine(i)!;
    if (i > first && !line.isWrapped) break;
    text += line.translateToString(i + 1 < buffer.length && buffer.getLine(i + 1)!.isWrapped ? false : true);
  }
  return text;
}

/** Plays `raw` (as read from the terminal's master side) into a terminal of `cols` columns. */
export async function playScreen(raw: string, cols: number): Promise<Screen> {
  const term = new xterm.Terminal({ cols, rows: 24, scrollback: 100_000, allowProposedApi: true });
  const overflows = new Set<string>();
  const write = (data: string) => new Promise<void>((resolve) => term.write(data, resolve));
  for (const piece of raw.split(BOUNDARY)) {
    if (!piece) continue;
    await write(piece);
    const buffer = term.buffer.active;
    const row = buffer.baseY + buffer.cursorY;
    if (buffer.getLine(row)?.isWrapped) overflows.add(logicalLine(buffer, row));
  }
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    if (buffer.getLine(i)!.isWrapped) {
      overflows.add(logicalLine(buffer, i));
      continue;
    }
    lines.push(logicalLine(buffer, i));
  }
  term.dispose();
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return { lines, overflows: [...overflows] };
}
