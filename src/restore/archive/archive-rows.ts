import { rm } from 'node:fs/promises';
import { execa } from 'execa';
import { InterruptedError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { writeRestoreList } from './restore-list.js';
import type { Toc } from './toc.js';

type Env = Record<string, string | undefined>;

/** The rows the archive holds per table, as its COPY blocks name them ("schema\u0000name": rows). */
export interface ArchiveRows {
  /** Rows per COPY target; keyed by schema and name joined with NUL, which no identifier holds. */
  tables: Map<string, number>;
  /** TABLE DATA entries that held no COPY block (a dump made with --inserts): not counted. */
  uncounted: number;
}

export type ArchiveRowsResult = ArchiveRows | { failed: string };

export const tableKey = (schema: string, name: string) => `${schema}\u0000${name}`;

const NL = 0x0a;
const BACKSLASH = 0x5c;
const DOT = 0x2e;

/**
 * Counts the rows of `pg_restore -f -` output as it streams: in COPY text format a newline inside a
 * value is written as `\n`, so each line between `COPY ... FROM stdin;` and `\.` is one row (and a
 * data line cannot begin with `\.`: a backslash in a value is doubled). Data bytes are scanned with
 * indexOf and never turned into strings; only the lines between blocks (SET, comments, COPY headers)
 * are.
 */
export class CopyRowCounter {
  readonly tables = new Map<string, number>();
  blocks = 0;
  #inData = false;
  #table = '';
  #rows = 0;
  /** The current data line so far: its length and first two bytes (enough to tell `\.`). */
  #lineLength = 0;
  #head0 = -1;
  #head1 = -1;
  /** The current line outside data, and a COPY header that goes on over several lines (a quoted name with a newline). */
  #outside: Buffer[] = [];
  #header: string | undefined;

  /** `decode`: the archive's encoding (archive-encoding.ts), in which its COPY headers name the tables. */
  constructor(private readonly decode: (bytes: Uint8Array) => string = (b) => Buffer.from(b).toString('utf8')) {}

  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(NL, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (this.#inData) {
        if (this.#lineLength === 0 && end > pos) this.#head0 = chunk[pos]!;
        if (this.#lineLength <= 1 && end > pos + 1 - this.#lineLength) this.#head1 = chunk[pos + 1 - this.#lineLength]!;
        this.#lineLength += end - pos;
        if (nl !== -1) this.#endDataLine();
      } else {
        this.#outside.push(chunk.subarray(pos, end));
        if (nl !== -1) this.#endOutsideLine();
      }
      pos = end + 1;
    }
  }

  /** The counts once the stream has ended; a block left open means the output was cut short. */
  end(): Map<string, number> {
    if (this.#inData || this.#header !== undefined) throw new Error("the archive's data ended inside a COPY block");
    return this.tables;
  }

  #endDataLine(): void {
    if (this.#lineLength === 2 && this.#head0 === BACKSLASH && this.#head1 === DOT) {
      this.tables.set(this.#table, (this.tables.get(this.#table) ?? 0) + this.#rows);
      this.#inData = false;
    } else {
      this.#rows++;
    }
    this.#lineLength = 0;
    this.#head0 = this.#head1 = -1;
  }

  #endOutsideLine(): void {
    const line = this.decode(Buffer.concat(this.#outside));
    this.#outside = [];
    if (this.#header === undefined && !line.startsWith('COPY ')) return;
    const text = this.#header === undefined ? line : `${this.#header}\n${line}`;
    const parsed = parseCopyHeader(text);
    if (parsed === 'incomplete') {
      this.#header = text;
      return;
    }
    this.#header = undefined;
    this.#table = tableKey(parsed.schema, parsed.name);
    this.#rows = 0;
    this.#inData = true;
    this.blocks++;
  }
}

/** An identifier as pg_dump writes it (fmtId): plain lower case, or double-quoted with "" for a quote. */
function identifier(text: string, at: number): { value: string; next: number } | 'incomplete' | undefined {
  if (text[at] === '"') {
    let value = '';
    let i = at + 1;
    for (;;) {
      const q = text.indexOf('"', i);
      if (q === -1 || q === text.length - 1) return 'incomplete';
      value += text.slice(i, q);
      if (text[q + 1] !== '"') return { value, next: q + 1 };
      value += '"';
      i = q + 2;
    }
  }
  const m = /^[\p{L}_][\p{L}\p{N}_$]*/u.exec(text.slice(at));
  return m ? { value: m[0], next: at + m[0].length } : undefined;
}

/**
 * `COPY schema.name (col, ...) FROM stdin;`, as pg_restore writes a TABLE DATA entry. 'incomplete'
 * where a quoted name goes on on the next line; an error for anything else, which pg_restore does
 * not write.
 */
export function parseCopyHeader(text: string): { schema: string; name: string } | 'incomplete' {
  const parts: string[] = [];
  let at = 'COPY '.length;
  for (;;) {
    const id = identifier(text, at);
    if (id === 'incomplete') return 'incomplete';
    if (!id) throw new Error(`unexpected COPY line: ${text.slice(0, 200)}`);
    parts.push(id.value);
    at = id.next;
    if (text[at] !== '.') break;
    at++;
  }
  if (parts.length !== 2) throw new Error(`unexpected COPY target: ${text.slice(0, 200)}`);
  const rest = text.slice(at);
  if (rest.startsWith(' (')) {
    // The column list: identifiers, each possibly quoted (and holding a newline or ") "), up to ")".
    let i = at + 2;
    for (;;) {
      const col = identifier(text, i);
      if (col === 'incomplete') return 'incomplete';
      if (!col) throw new Error(`unexpected COPY column list: ${text.slice(0, 200)}`);
      i = col.next;
      if (text.startsWith(', ', i)) i += 2;
      else if (text[i] === ')') break;
      else if (i >= text.length) return 'incomplete';
      else throw new Error(`unexpected COPY column list: ${text.slice(0, 200)}`);
    }
    at = i + 1;
  }
  if (text.slice(at) === ' FROM stdin;') return { schema: parts[0]!, name: parts[1]! };
  if (' FROM stdin;'.startsWith(text.slice(at))) return 'incomplete';
  throw new Error(`unexpected COPY line: ${text.slice(0, 200)}`);
}

export interface ArchiveRowCount {
  /** The counts once done (a failure to count is `{ failed }`); throws only when the run was interrupted. */
  counts: () => Promise<ArchiveRowsResult>;
  /** Ends the counting process (when the run stops early) and waits for it. */
  stop: () => Promise<void>;
}

/**
 * The archive's rows per table (cli-contract 9.11), read from the verified file by a second
 * pg_restore that runs while the restore does: only the TABLE DATA entries (a `-L` list, so large
 * objects are never decompressed), as a script on stdout. It ends with the run's signal, or stop().
 */
export function countArchiveRows(
  pgRestore: string,
  archivePath: string,
  toc: Toc,
  dir: string,
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
): ArchiveRowCount {
  const own = new AbortController();
  const cancel = AbortSignal.any([signal, own.signal]);
  let settled: Promise<unknown> = Promise.resolve();
  // Never rejects, so a count that ends while nobody awaits it yet is no unhandled rejection.
  const result = (async (): Promise<ArchiveRowsResult> => {
    const ids = toc.entries.filter((e) => e.tableoid === 0 && e.desc === 'TABLE DATA').map((e) => e.dumpId);
    if (ids.length === 0) return { tables: new Map(), uncounted: 0 };
    const list = await writeRestoreList(dir, 'table-data', ids);
    const counter = new CopyRowCounter(toc.encoding.decode);
    const child = execa(pgRestore, ['--data-only', `--use-list=${list}`, '--file=-', archivePath], {
      env,
      extendEnv: false,
      reject: false,
      cancelSignal: cancel,
      forceKillAfterDelay: 5_000,
      stdin: 'ignore',
      buffer: { stdout: false, stderr: true },
      encoding: 'buffer',
    });
    settled = child.catch(() => undefined);
    let parseError: unknown;
    child.stdout!.on('data', (chunk: Buffer) => {
      if (parseError) return;
      try {
        counter.push(chunk);
      } catch (err) {
        parseError = err;
        own.abort();
      }
    });
    const r = await child;
    await rm(list, { force: true });
    if (parseError) return { failed: (parseError as Error).message };
    if (r.isCanceled || cancel.aborted) return { failed: 'interrupted' };
    if (r.exitCode !== 0) {
      const stderr =
        Buffer.from(r.stderr as Uint8Array)
          .toString('utf8')
          .trim()
          .split('\n')[0] ?? '';
      return { failed: `pg_restore exited with code ${r.exitCode}: ${scrubber.scrub(stderr)}` };
    }
    try {
      return { tables: counter.end(), uncounted: ids.length - counter.blocks };
    } catch (err) {
      return { failed: (err as Error).message };
    }
  })().catch((err: unknown) => ({ failed: err instanceof Error ? err.message : String(err) }));
  return {
    counts: async () => {
      const counted = await result;
      if (signal.aborted) throw new InterruptedError("Interrupted while the archive's rows were counted.");
      return counted;
    },
    stop: async () => {
      own.abort();
      await result;
      await settled;
    },
  };
}
