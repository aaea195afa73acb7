import type { CountLabel } from '../../ui/progress.js';
import type { Toc } from '../archive/toc.js';

/** Entries pg_restore skips under --no-privileges: they are in the listing but never restored. */
const SKIPPED = new Set(['ACL', 'DEFAULT ACL']);

/** One entry done, serially: "creating TABLE ...", "processing data for table ...", "executing SEQUENCE SET ...". */
const SERIAL_DONE = /^pg_restore: (creating|processing data for table|executing|restoring large objects?) /;
/** With --jobs, each entry is named by its dump id: done when processed (serial part) or finished (parallel part). */
const ITEM_DONE = /^pg_restore: (?:processing|finished) item (\d+) /;
/** A table's rows start to load, in either mode (a parallel worker says it too). */
const DATA_STARTS = /^pg_restore: processing data for table "(.*)"$/;
const ITEM_FINISHED = /^pg_restore: finished item (\d+) TABLE DATA /;

/**
 * pg_restore's progress, read from its own --verbose output against the archive's table of contents
 * (cli-contract 4): `total` objects to restore, `line()` says whether a line of stderr finished one.
 * A verbose line is not an error: `isVerbose()` keeps them out of a failure's message.
 */
export class RestoreProgress {
  readonly total: number;
  done = 0;
  readonly #ids: Set<number>;
  readonly #seen = new Set<number>();
  /** Objects counted from serial lines: a restore in passes (restore-passes.ts) runs serial passes before a parallel one. */
  #serial = 0;
  #parallel = false;
  /** Tables whose rows are loading, oldest first; with --jobs, several at once. */
  readonly #loading: string[] = [];
  readonly #dataTables = new Map<number, string>();

  constructor(toc: Toc) {
    this.#ids = new Set(toc.entries.filter((e) => !SKIPPED.has(e.desc)).map((e) => e.dumpId));
    this.total = this.#ids.size;
    for (const e of toc.entries) {
      const [schema, name] = e.words.split(' ');
      if (e.desc === 'TABLE DATA' && name) this.#dataTables.set(e.dumpId, `${schema}.${name}`);
    }
  }

  /** The table whose rows are loading now (the latest started, with --jobs), as pg_restore names it: what a long "3 of 7" is waiting for. */
  get loading(): string | undefined {
    return this.#loading.at(-1);
  }

  /** What the progress line shows (cli-contract 4): objects done of the total and the table loading, into `target` where it fits. */
  display(target: string): CountLabel {
    return {
      label: 'Running pg_restore',
      short: 'pg_restore',
      place: `into ${target}`,
      unit: 'objects',
      total: this.total,
      detail: () => this.loading && `loading ${this.loading}`,
    };
  }

  /** Reads one line of pg_restore's stderr; true when it finished an object or a table started loading. */
  line(text: string): boolean {
    const table = DATA_STARTS.exec(text)?.[1];
    const finished = ITEM_FINISHED.exec(text);
    if (finished) {
      const name = this.#dataTables.get(Number(finished[1]));
      const at = name === undefined ? -1 : this.#loading.lastIndexOf(name);
      if (at >= 0) this.#loading.splice(at, 1);
    } else if (!this.#parallel && SERIAL_DONE.test(text)) {
      // Serially, the next entry begun means the one before it is done.
      this.#loading.length = 0;
    }
    if (table !== undefined) this.#loading.push(table);
    return this.#count(text) || table !== undefined;
  }

  #count(text: string): boolean {
    const item = ITEM_DONE.exec(text);
    if (item) {
      this.#parallel = true;
      const id = Number(item[1]);
      // ENCODING, STDSTRINGS and the like are processed too, but are no entry of the listing.
      if (!this.#ids.has(id) || this.#seen.has(id)) return false;
      this.#seen.add(id);
      this.done = Math.min(this.total, this.#serial + this.#seen.size);
      return true;
    }
    if (this.#parallel || !SERIAL_DONE.test(text) || this.done >= this.total) return false;
    this.#serial += 1;
    this.done = this.#serial;
    return true;
  }

  /** A progress line of --verbose ("pg_restore: creating ..."), as opposed to an error, a warning or a detail of one. */
  static isVerbose(text: string): boolean {
    return /^pg_restore: (?!error:|warning:|detail:|hint:)/.test(text);
  }
}
