import { once } from 'node:events';
import { execa } from 'execa';
import { InterruptedError, LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { archiveEncoding, ByteLines, encodingSetBy, UTF8_ARCHIVE, type ArchiveEncoding } from './archive-encoding.js';

type Env = Record<string, string | undefined>;

/**
 * One entry of the archive's schema script, as `pg_restore --create --schema-only -f -` prints it:
 * a header comment (`-- Name: <name>; Type: <type>; Schema: <schema>; Owner: <owner>[; Tablespace: <ts>]`,
 * written by pg_restore from the table of contents, with newlines in names replaced), then its SQL.
 * `pg_restore -l` lists neither the DATABASE nor the DATABASE PROPERTIES entry, and prints no SQL:
 * what the restore must honour (encoding, locale, settings, tablespaces, roles named in policies,
 * extension schemas, languages) is only here.
 */
export interface ScriptEntry {
  type: string;
  name: string;
  schema: string;
  owner: string;
  /** The tablespace pg_restore would put the object in ("" or undefined: the default). */
  tablespace?: string;
  /** The entry's SQL (psql meta-commands such as `\connect` left out), for the kinds in SQL_KINDS; otherwise "". */
  sql: string;
}

export interface ArchiveScript {
  entries: ScriptEntry[];
  /** The encoding its text is in, from the preamble's SET client_encoding (cli-contract 7.18). */
  encoding: ArchiveEncoding;
}

/**
 * The kinds whose SQL is kept: what svc reads of an archive beyond its listing. Tables, indexes and
 * the like are only named, so memory does not follow the size of the schema.
 */
export const SQL_KINDS: ReadonlySet<string> = new Set([
  'DATABASE',
  'DATABASE PROPERTIES',
  'COMMENT',
  'EXTENSION',
  'POLICY',
  'FUNCTION',
  'PROCEDURE',
  'AGGREGATE',
  'EVENT TRIGGER',
  'FOREIGN DATA WRAPPER',
  'SERVER',
  'USER MAPPING',
  'SUBSCRIPTION',
  'PUBLICATION',
  'PROCEDURAL LANGUAGE',
  'DEFAULT ACL',
  'ACL',
]);

/** An entry's SQL longer than this is cut (a function body of megabytes says nothing more about rights or settings). */
const SQL_LIMIT = 256 * 1024;

const HEADER = /^-- Name: (.*); Type: (.*?); Schema: (.*?); Owner: (.*?)(?:; Tablespace: (.*))?$/;

/** Splits a schema script into its entries, line by line. */
export class ScriptParser {
  readonly entries: ScriptEntry[] = [];
  /** What the lines are decoded with: UTF-8 until the preamble names the archive's encoding. */
  encoding: ArchiveEncoding = UTF8_ARCHIVE;
  #current: ScriptEntry | undefined;
  #keep = false;
  #previous = '';

  line(text: string): void {
    const named = this.#current ? undefined : encodingSetBy(text);
    if (named) this.encoding = archiveEncoding(named);
    const header = this.#previous === '--' ? HEADER.exec(text) : null;
    this.#previous = text;
    if (header) {
      const [, name, type, schema, owner, tablespace] = header;
      this.#current = { type: type!, name: name!, schema: schema!, owner: owner!, ...(tablespace ? { tablespace } : {}), sql: '' };
      this.#keep = SQL_KINDS.has(type!);
      this.entries.push(this.#current);
      return;
    }
    if (!this.#current || !this.#keep || text.startsWith('\\') || text.startsWith('--')) return;
    if (this.#current.sql.length + text.length > SQL_LIMIT) return;
    this.#current.sql += this.#current.sql ? `\n${text}` : text;
  }

  done(): ArchiveScript {
    for (const e of this.entries) e.sql = e.sql.trim();
    return { entries: this.entries, encoding: this.encoding };
  }
}

export function parseArchiveScript(text: string): ArchiveScript {
  const parser = new ScriptParser();
  for (const line of text.split('\n')) parser.line(line);
  return parser.done();
}

/** The entries of one kind. */
export function entriesOf(script: ArchiveScript, type: string): ScriptEntry[] {
  return script.entries.filter((e) => e.type === type);
}

/** Every tablespace the archive's objects name, each once. */
export function tablespacesOf(script: ArchiveScript): string[] {
  return [...new Set(script.entries.map((e) => e.tablespace).filter((t): t is string => Boolean(t)))];
}

/**
 * The verified archive's schema script, read as pg_restore writes it (no connection, no data): one
 * pass, streamed, once per run. `--create` so that the DATABASE and DATABASE PROPERTIES entries
 * are printed.
 */
export async function readArchiveScript(
  archivePath: string,
  pgRestore: string,
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
): Promise<ArchiveScript> {
  const child = execa(pgRestore, ['--create', '--schema-only', '-f', '-', archivePath], {
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    buffer: { stdout: false, stderr: true },
    encoding: 'buffer',
    cancelSignal: signal,
  });
  const parser = new ScriptParser();
  // Bytes, each line decoded in the archive's encoding once the preamble has named it.
  const lines = new ByteLines((raw) => parser.line(parser.encoding.decode(raw)));
  child.stdout!.on('data', (chunk: Buffer) => lines.push(chunk));
  const [r] = await Promise.all([child, once(child.stdout!, 'end')]);
  lines.end();
  if (signal.aborted) throw new InterruptedError("Interrupted while reading the archive's schema.");
  if (r.exitCode !== 0) {
    throw new LocalToolError(
      `pg_restore could not read the archive's schema: ${scrubber.scrub(
        Buffer.from(r.stderr as Uint8Array)
          .toString('utf8')
          .trim()
          .split('\n')[0] ?? '',
      )}`,
    );
  }
  return parser.done();
}
