import type { Toc } from './toc.js';

/** Entries pg_restore skips under --no-privileges: they are in the listing but never restored. */
const SKIPPED = new Set(['ACL', 'DEFAULT ACL']);

/** One entry done, serially: "creating TABLE ...", "processing data for table ...", "executing SEQUENCE SET ...". */
const SERIAL_DONE = /^pg_restore: (creating|processing data for table|executing|restoring large objects?) /;
/** With --jobs, each entry is named by its dump id: done when processed (serial part) or finished (parallel part). */
const ITEM_DONE = /^pg_restore: (?:processing|finished) item (\d+) /;

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

  constructor(toc: Toc) {
    this.#ids = new Set(toc.entries.filter((e) => !SKIPPED.has(e.desc)).map((e) => e.dumpId));
    this.total = this.#ids.size;
  }

  /** Reads one line of pg_restore's stderr; true when it finished an object (and `done` grew). */
  line(text: string): boolean {
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
