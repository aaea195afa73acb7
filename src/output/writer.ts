import type { Writable } from 'node:stream';
import type { Paint, Style } from '../ui/style.js';

export interface Column<T> {
  header: string;
  value: (row: T) => string;
}

/** A label/value line of a key/value block; undefined values are left out. */
export type Field = [label: string, value: string | undefined, style?: Style];

/** What a command shows a person; the writer alone turns it into text. */
export type Block =
  | { kind: 'table'; rows: unknown[]; columns: Column<any>[]; empty: string }
  | { kind: 'fields'; title?: string; fields: Field[] }
  | { kind: 'text'; text: string; style?: Style };

export const table = <T>(rows: T[], columns: Column<T>[], empty: string): Block => ({ kind: 'table', rows, columns, empty });
export const fields = (items: Field[], title?: string): Block => ({ kind: 'fields', fields: items, title });
export const text = (value: string, style?: Style): Block => ({ kind: 'text', text: value, style });

/** Draws a non-empty table (output/table.ts); loaded for human output only, so --json never pays for cli-table3. */
export type TableDrawer = (rows: unknown[], columns: Column<any>[], paint: Paint) => string;

/** The one output layer: stdout carries results only, in human form or as exactly one JSON document. */
export class Writer {
  constructor(
    private readonly stdout: Writable,
    private readonly json: boolean,
    private readonly paint: Paint,
    private readonly drawTable?: TableDrawer,
  ) {}

  /** Ends a command: the validated body as JSON, or the human blocks. */
  render(body: unknown, blocks: Block[]): void {
    if (this.json) {
      this.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      return;
    }
    const parts = blocks.map((b) => this.#block(b));
    this.stdout.write(`${parts.join('\n\n')}\n`);
  }

  #block(block: Block): string {
    switch (block.kind) {
      case 'text':
        return block.style ? this.paint(block.style, block.text) : block.text;
      case 'fields':
        return this.#fields(block.fields, block.title);
      case 'table':
        return this.#table(block.rows, block.columns, block.empty);
    }
  }

  #fields(items: Field[], title: string | undefined): string {
    const shown = items.filter((f): f is Field & [string, string] => f[1] !== undefined);
    const width = Math.max(0, ...shown.map(([label]) => label.length));
    const lines = shown.map(([label, value, style]) => {
      const key = this.paint('dim', `${label}:`.padEnd(width + 1));
      return `${key}  ${style ? this.paint(style, value) : value}`;
    });
    return title ? [this.paint('bold', title), ...lines.map((l) => `  ${l}`)].join('\n') : lines.join('\n');
  }

  #table(rows: unknown[], columns: Column<any>[], empty: string): string {
    if (rows.length === 0) return empty;
    if (!this.drawTable) throw new Error('Writer: human output needs a table drawer (Session.open loads it)');
    return this.drawTable(rows, columns, this.paint);
  }
}
