import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import type { SecretScrubber } from '../secrets.js';
import { psql, PsqlError } from '../restore/pg-tools.js';

type Env = Record<string, string | undefined>;

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
const STATEMENT_TIMEOUT = '60s';

/** Comments and blank lines only: what may stand before the first marker, or make up an empty check. */
const isBlank = (sql: string) => sql.split('\n').every((l) => /^\s*(--.*)?$/.test(l));

/**
 * The checks of one file: each introduced by a line `-- check: <name>` and followed by one SELECT
 * (or WITH ... SELECT). Anything wrong with the file is exit 2, before any request.
 */
export function parseCheckFile(text: string, file: string): SqlCheck[] {
  const checks: SqlCheck[] = [];
  let lead = '';
  let current: { name: string; lines: string[] } | undefined;
  const close = () => {
    if (!current) return;
    // Comment lines after the closing semicolon (a note before the next check) belong to no query:
    // left in, the semicolon would end the statement inside the subquery runCheck wraps it in.
    const lines = [...current.lines];
    while (lines.length && isBlank(lines.at(-1)!)) lines.pop();
    // The closing semicolon goes, with a comment on its line ("SELECT ...; -- why").
    const sql = lines.join('\n').trim().replace(/;[ \t]*(--[^\n]*)?$/, '').trim();
    if (isBlank(sql)) throw new UsageError(`${file}: check "${current.name}" has no query after its "-- check:" line.`);
    const body = sql.replace(/^(\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/))*/, '').trim();
    if (!/^(\(|(select|with|values|table)\b)/i.test(body)) {
      throw new UsageError(`${file}: check "${current.name}" must be one SELECT (a check passes when it returns no rows).`);
    }
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

const cut = (v: unknown) => {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}…` : text;
};

/**
 * Runs one check in the scratch database: one statement (psql -c: no psql meta-command in a check is
 * obeyed), in a session whose transactions are read-only and whose statements time out, so a check
 * can neither change the restored data nor hang the drill.
 */
export async function runCheck(check: SqlCheck, database: string, env: Env, scrubber: SecretScrubber, signal: AbortSignal): Promise<CheckRun> {
  const statement = `SELECT coalesce(json_agg(row_to_json(q)), '[]') FROM (SELECT * FROM (\n${check.sql}\n) AS svc_check LIMIT ${ROWS_SHOWN + 1}) AS q`;
  const session = `-c default_transaction_read_only=on -c statement_timeout=${STATEMENT_TIMEOUT}`;
  const checkEnv = { ...env, PGOPTIONS: env.PGOPTIONS ? `${env.PGOPTIONS} ${session}` : session };
  let rows: Array<Record<string, unknown>>;
  try {
    rows = JSON.parse(await psql(statement, { env: checkEnv, database, scrubber, signal, command: true }));
  } catch (err) {
    if (err instanceof PsqlError) return { passed: false, detail: `the query failed: ${err.reason}` };
    throw err;
  }
  if (rows.length === 0) return { passed: true };
  const shown = rows.slice(0, ROWS_SHOWN).map((r) => Object.entries(r).map(([k, v]) => `${k}=${cut(v)}`).join(', '));
  const count = rows.length > ROWS_SHOWN ? `more than ${ROWS_SHOWN} rows` : `${rows.length} row${rows.length === 1 ? '' : 's'}`;
  return { passed: false, detail: `returned ${count}; ${rows.length > ROWS_SHOWN ? `the first ${ROWS_SHOWN}` : 'they are'}: ${shown.join(' | ')}` };
}
