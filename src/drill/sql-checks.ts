import { readFile } from 'node:fs/promises';
import { InterruptedError, UsageError } from '../errors.js';
import type { SecretScrubber } from '../secrets.js';
import { firstRows, readOnlyTransaction, withSession, type FirstRows, type SessionConfig } from '../pg/session.js';

/** One SQL check (cli-contract 9, step 4): a dbt-style test, which passes when its query returns no rows. */
export interface SqlCheck {
  name: string;
  sql: string;
  file: string;
}

const MARKER = /^--\s*check:\s*(.*?)\s*$/;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** Rows shown for a failed check, and the characters kept of each value. */
const ROWS_SHOWN = 5;
const VALUE_CHARS = 200;

/** Comments and blank lines only: what may stand before the first marker, or make up an empty check. */
const isBlank = (sql: string) => sql.split('\n').every((l) => /^\s*(--.*)?$/.test(l));

/**
 * The checks of one file: each introduced by a line `-- check: <name>` and followed by its query.
 * Anything wrong with the file's form is exit 2, before any request; the query's text is not judged.
 */
export function parseCheckFile(text: string, file: string): SqlCheck[] {
  const checks: SqlCheck[] = [];
  let lead = '';
  let current: { name: string; lines: string[] } | undefined;
  const close = () => {
    if (!current) return;
    // Comment lines after the closing semicolon (a note before the next check) belong to no query.
    const lines = [...current.lines];
    while (lines.length && isBlank(lines.at(-1)!)) lines.pop();
    // The closing semicolon goes, with a comment on its line ("SELECT ...; -- why").
    const sql = lines
      .join('\n')
      .trim()
      .replace(/;[ \t]*(--[^\n]*)?$/, '')
      .trim();
    if (isBlank(sql)) throw new UsageError(`${file}: check "${current.name}" has no query after its "-- check:" line.`);
    // What the query is, is the server's to say (cli-contract 7.16 b): it runs read-only, as one statement, and rolled back.
    checks.push({ name: current.name, sql, file });
  };
  for (const line of text.split('\n')) {
    const m = MARKER.exec(line);
    if (!m) {
      if (current) current.lines.push(line);
      else lead += `${line}\n`;
      continue;
    }
    close();
    if (!NAME.test(m[1]!)) throw new UsageError(`${file}: invalid check name "${m[1]}": use 1 to 64 of A-Z a-z 0-9 _ . -`);
    current = { name: m[1]!, lines: [] };
  }
  close();
  if (!isBlank(lead)) throw new UsageError(`${file}: SQL before the first "-- check: <name>" line belongs to no check.`);
  if (checks.length === 0) throw new UsageError(`${file} holds no check: introduce each with a line "-- check: <name>".`);
  return checks;
}

/** Every --check file, read and parsed; a name used twice across them all is exit 2. */
export async function readChecks(files: string[]): Promise<SqlCheck[]> {
  const all: SqlCheck[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`Cannot read --check ${file}: ${(err as NodeJS.ErrnoException).code ?? 'read failed'}.`);
    }
    for (const check of parseCheckFile(text, file)) {
      const twin = all.find((c) => c.name === check.name);
      if (twin) throw new UsageError(`Check "${check.name}" is defined twice (${twin.file} and ${file}): check names must be unique.`);
      all.push(check);
    }
  }
  return all;
}

export interface CheckRun {
  passed: boolean;
  /** What a failure showed: the first rows the query returned, or the error. */
  detail?: string;
}

/** A value as shown: cut at 200 characters (the connection already cut it to a few bytes more). */
const cut = (v: string | null) => {
  if (v === null) return 'null';
  const chars = [...v];
  return chars.length > VALUE_CHARS ? `${chars.slice(0, VALUE_CHARS).join('')}…` : v;
};

/** Why a check could not run, in the server's words (psql's form, "ERROR:  ..."); never empty. */
export function reason(err: unknown): string {
  const e = err as { severity?: string; message?: string; detail?: string; code?: string };
  const message = e?.message?.trim() || e?.code || 'the connection to the scratch database failed without a message';
  const said = e?.severity ? `${e.severity}:  ${message}` : message;
  return e?.detail ? `${said} (${e.detail.trim()})` : said;
}

/**
 * Runs one check in a scratch database, on a fresh connection of its own (no setting of one check
 * reaches the next) as the run's check role, whose statements time out (cli-contract 9, v4 step 10),
 * inside a read-only transaction block svc opens and rolls back (7.16 b): the check's text as
 * written, sent as one statement, of which the first rows only are read (5 and one more, to know
 * there are more).
 */
export async function runCheck(check: SqlCheck, session: () => Promise<SessionConfig>, scrubber: SecretScrubber, signal: AbortSignal): Promise<CheckRun> {
  const interrupted = () => new InterruptedError('Interrupted while a SQL check was running.');
  if (signal.aborted) throw interrupted();
  let found: FirstRows;
  try {
    found = await withSession(await session(), signal, (client) => readOnlyTransaction(client, () => firstRows(client, check.sql, ROWS_SHOWN + 1)));
  } catch (err) {
    if (signal.aborted) throw interrupted();
    return { passed: false, detail: `the query failed: ${scrubber.scrub(reason(err))}` };
  }
  const { rows, columns, command } = found;
  if (rows.length === 0 && command === null) return { passed: false, detail: 'the query failed: the server ran no statement (the check holds only comments)' };
  if (rows.length === 0) return { passed: true };
  const shown = rows.slice(0, ROWS_SHOWN).map((r) => r.map((v, i) => `${columns[i]}=${cut(v)}`).join(', '));
  const count = rows.length > ROWS_SHOWN ? `more than ${ROWS_SHOWN} rows` : `${rows.length} row${rows.length === 1 ? '' : 's'}`;
  return { passed: false, detail: `returned ${count}; ${rows.length > ROWS_SHOWN ? `the first ${ROWS_SHOWN}` : 'they are'}: ${shown.join(' | ')}` };
}
