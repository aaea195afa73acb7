import type { Writable } from 'node:stream';
import type { Paint, Style } from '../ui/style.js';
import { renderFields, type Field } from './fields.js';
import { fitTable, type ColumnFit } from './fit.js';
import { fittedJson } from './fitted-json.js';
import { MergedDocument } from './merged-document.js';
import { plain, terminalLine, terminalSafe, terminalSafeJson, wrapWords } from './terminal-text.js';

export type { Field } from './fields.js';

/** A table column: its header, its cells, and how it gives way on a narrow terminal (output/fit.ts). */
export interface Column<T> extends ColumnFit {
  value: (row: T) => string;
  /** A colour for the cell (a failed or degraded state), on a terminal that shows colour. */
  style?: (row: T) => Style | undefined;
}

/**
 * What a command shows a person; the writer alone turns it into text. Tables, key/value blocks and
 * text are data, on stdout; notes (caveats, hints, glossaries) are for the person, on stderr
 * (cli-contract 4), so `svc ... | wc -l` counts data only.
 */
export type Block =
  | { kind: 'table'; rows: unknown[]; columns: Column<any>[]; empty: string; headers?: boolean }
  | { kind: 'fields'; title?: string; fields: Field[] }
  | { kind: 'text'; text: string; style?: Style }
  | { kind: 'note'; text: string; style?: Style; commands?: boolean };

/** A table; `headers: false` (--no-headers) leaves its header row out, for scripts that count or cut its lines. */
export const table = <T>(rows: T[], columns: Column<T>[], empty: string, opts: { headers?: boolean } = {}): Block => ({
  kind: 'table',
  rows,
  columns,
  empty,
  ...opts,
});
export const fields = (items: Field[], title?: string): Block => ({ kind: 'fields', fields: items, title });
export const text = (value: string, style?: Style): Block => ({ kind: 'text', text: value, style });
export const note = (value: string, style?: Style): Block => ({ kind: 'note', text: value, style });
/** A note of command lines to copy and run: never broken where a shell would not read them back. */
export const commandsNote = (lines: string[], style?: Style): Block => ({ kind: 'note', text: lines.join('\n'), style, commands: true });

/** Draws a table of plain cells (output/table.ts); loaded for human output only, so --json never pays for cli-table3. */
export type TableDrawer = (header: string[], rows: string[][], paint: Paint) => string;

/** A compiled --jq expression (output/jq.ts). */
export interface JqFilter {
  /** The results for a document, each as the line jq -r would print. */
  lines(document: unknown): Promise<string[]>;
}

export interface WriterOptions {
  json: boolean;
  paint: Paint;
  drawTable?: TableDrawer;
  /** --jq, compiled (output/jq.ts); implies json. */
  jq?: JqFilter;
  /** Columns of the terminal stdout is on; undefined when it is not one: then nothing is cut or wrapped. */
  width?: number;
  /** Where notes go: the stderr reporter (silent with --quiet); `commands`: lines to copy and run. */
  notice: (text: string, style?: Style, commands?: boolean) => void;
  /** Secrets out of a document, by key, before it is printed or filtered (SecretScrubber.scrubDocument). */
  scrubDocument: <T>(document: T) => T;
  /** Whether scrubDocument could change a value, told from its JSON text (SecretScrubber.mayChangeDocument); always, where not given. */
  mayChangeDocument?: (json: string) => boolean;
}

/** Columns between a table's columns. */
const GAP = 2;

/** The one output layer: stdout carries results only, in human form or as exactly one JSON document. */
export class Writer {
  private readonly json: boolean;
  private readonly opts: WriterOptions;
  /** --jq runs queued by document(), in order; settles when the last one's lines are written. */
  #jqQueue: Promise<void> = Promise.resolve();
  #jqFailure: { error: unknown } | undefined;

  constructor(
    private readonly stdout: Writable,
    opts: WriterOptions,
  ) {
    this.json = opts.json || opts.jq !== undefined;
    this.opts = opts;
  }

  /**
   * A JSON document on stdout, its secrets scrubbed by key first: filtered through --jq when given,
   * else pretty-printed. Settles once it is written: --jq's lines come when jq's thread answers (see render()).
   */
  document(body: unknown): Promise<void> {
    if (this.opts.jq) return this.#filter(this.opts.jq, this.opts.scrubDocument(body));
    this.stdout.write(`${this.#json(body, 2)}\n`);
    return Promise.resolve();
  }

  /**
   * The one way from a document to --jq: its lines are written after the documents before it, and
   * none after a failure. The promise returned may be left unawaited (flush() reports the failure).
   */
  #filter(jq: JqFilter, body: unknown): Promise<void> {
    const written = this.#jqQueue.then(async () => {
      if (this.#jqFailure) throw this.#jqFailure.error;
      try {
        for (const line of await jq.lines(body)) this.stdout.write(`${line}\n`);
      } catch (error) {
        this.#jqFailure = { error };
        throw error;
      }
    });
    this.#jqQueue = written.catch(() => {});
    return written;
  }

  /** Waits until every document is on stdout; a --jq failure is thrown here, to end the run with. */
  async flush(): Promise<void> {
    await this.#jqQueue;
    if (this.#jqFailure) throw this.#jqFailure.error;
  }

  /** --jq needs the whole document; without it a merged list can be written as its pages arrive. */
  get streamsDocuments(): boolean {
    return this.opts.jq === undefined;
  }

  /**
   * The merged list of --all / --paginate written as its pages arrive (cli-contract 6): the text
   * document() prints for `{...head, [itemsKey]: every item}` (pretty), or the compact form.
   * Not for --jq, which needs the document whole.
   */
  mergedDocument(head: Record<string, unknown>, itemsKey: string, opts: { compact?: boolean } = {}): MergedDocument {
    if (!this.streamsDocuments) throw new Error('Writer: --jq needs the whole document, not a stream of it');
    return new MergedDocument(
      head,
      itemsKey,
      opts.compact ? undefined : 2,
      (value, indent, column) => this.#json(value, indent, column),
      (text) => this.#write(text),
      // Fitted to a terminal, an item's layout depends on its column: one at a time there.
      { wholePages: this.opts.width === undefined },
    );
  }

  /**
   * Every document and item the writer prints as JSON, whole or a page at a time, is made here, its
   * secrets scrubbed by key first (SecretScrubber.scrubDocument) unless its text shows it holds none.
   */
  #json(value: unknown, indent?: number, column?: number): string {
    // On a terminal, pretty JSON fits it too (output/fitted-json.ts); piped, it is exactly JSON.stringify's.
    if (indent !== undefined && this.opts.width !== undefined) return fittedJson(this.opts.scrubDocument(value), indent, this.opts.width, column);
    const text = JSON.stringify(value, null, indent);
    return this.opts.mayChangeDocument?.(text) === false ? terminalSafe(text) : terminalSafeJson(this.opts.scrubDocument(value), indent);
  }

  /** Writes `text`, resolving once stdout can take more: a stream of pages must not pile up in memory. */
  #write(text: string): Promise<void> {
    if (this.stdout.write(text)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.stdout.off('drain', done);
        this.stdout.off('close', done);
        this.stdout.off('error', done);
        resolve();
      };
      this.stdout.on('drain', done);
      this.stdout.on('close', done);
      this.stdout.on('error', done);
    });
  }

  /** A body exactly as the service sent it (svc api, piped), ending in one newline. */
  raw(text: string): void {
    this.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /**
   * Ends a command: the validated body as JSON (or what --jq makes of it), or the human blocks.
   * Settles once it is on stdout, which for --jq is later: a command that says more after it (a
   * hint on stderr, a failed job's exit code) awaits it, so that comes after the results, and not
   * at all when jq fails. Left unawaited, cli.ts's flush() still waits for it and reports the failure.
   */
  render(body: unknown, blocks: Block[]): Promise<void> {
    // A program reads --json: the notes written for a person are left out.
    if (this.json) return this.document(body);
    // In block order, so on a terminal a note appears where the command put it; data blocks are
    // separated by one empty line on stdout.
    let wroteData = false;
    for (const b of blocks) {
      if (b.kind === 'note') this.opts.notice(plain(b.text), b.style, b.commands);
      else if (b.kind === 'table' && b.rows.length === 0) this.opts.notice(plain(b.empty));
      else {
        this.stdout.write(`${wroteData ? '\n' : ''}${this.#block(b)}\n`);
        wroteData = true;
      }
    }
    return Promise.resolve();
  }

  #block(block: Exclude<Block, { kind: 'note' }>): string {
    const paint = this.opts.paint;
    switch (block.kind) {
      case 'text': {
        const lines = this.#wrap(plain(block.text), this.opts.width);
        return lines.map((l) => (block.style ? paint(block.style, l) : l)).join('\n');
      }
      case 'fields':
        return this.#fields(block.fields, block.title);
      case 'table':
        return this.#table(block.rows, block.columns, block.headers !== false);
    }
  }

  #wrap(value: string, width: number | undefined): string[] {
    return width === undefined ? value.split('\n') : wrapWords(value, width);
  }

  #fields(items: Field[], title: string | undefined): string {
    return renderFields(items, title, this.opts.paint, this.opts.width);
  }

  /**
   * A table fitted to the terminal (output/fit.ts); where no table fits, each row as a key/value
   * block of its own, so that no id or state is cut.
   */
  #table(rows: unknown[], columns: Column<any>[], headers: boolean): string {
    const { drawTable, paint, width } = this.opts;
    if (!drawTable) throw new Error('Writer: human output needs a table drawer (Session.open loads it)');
    const cells = rows.map((row) => columns.map((c) => terminalLine(c.value(row))));
    const fitted =
      width === undefined ? { kept: columns.map((_, i) => i), header: columns.map((c) => c.header), rows: cells } : fitTable(columns, cells, width, GAP);
    if (!fitted)
      return cells
        .map((row) =>
          this.#fields(
            columns.map((c, i): Field => [c.header.toLowerCase(), row[i]]),
            undefined,
          ),
        )
        .join('\n\n');
    // Colour after fitting, so widths are measured on the plain text.
    const painted = fitted.rows.map((row, r) =>
      row.map((cell, k) => {
        const style = columns[fitted.kept[k]!]!.style?.(rows[r]);
        return style ? paint(style, cell) : cell;
      }),
    );
    const drawn = drawTable(fitted.header, painted, paint);
    return headers ? drawn : drawn.split('\n').slice(1).join('\n');
  }
}
