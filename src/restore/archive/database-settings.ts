import type { SecretScrubber } from '../../secrets.js';
import { entriesOf, type ArchiveScript } from './archive-script.js';
import { PgError, refusalOf } from '../../pg/errors.js';
import { onEnv } from '../../pg/target-session.js';
import { quoteIdent, quoteLiteral } from '../../pg/quote.js';
import { isWord, statements, tokenize, writeToken, type SqlToken } from './sql-tokens.js';

type Env = Record<string, string | undefined>;

/**
 * The archive's database-level settings and comment (cli-contract 7.11), re-issued for the restored
 * database under its new name. Only three statement forms are read, strictly:
 * `ALTER DATABASE <ident> SET <name> TO <values>;`, `ALTER ROLE <ident> IN DATABASE <ident> SET
 * <name> TO <values>;` and `COMMENT ON DATABASE <ident> IS '<literal>';`, values being string
 * literals, numbers and identifiers separated by commas. svc writes each statement itself from the
 * parsed parts (identifiers and literals re-quoted), so no text of the archive is run as it stands.
 */
export interface DatabaseSetting {
  kind: 'database' | 'role' | 'comment';
  /** The statement as svc will run it (for `comment`, with the comment). */
  sql: (database: string) => string;
  /** How it is named in lists: the statement for the restored database. */
  role?: string;
}

/** What the archive held that svc does not apply, and why. */
export interface SkippedSetting {
  statement: string;
  reason: string;
}

export interface DatabaseSettingsReport {
  applied: string[];
  notApplied: SkippedSetting[];
}

export interface ArchiveSettings {
  settings: DatabaseSetting[];
  skipped: SkippedSetting[];
}

/** The DATABASE PROPERTIES entry's settings and the COMMENT ON DATABASE, from the archive's script. */
export function archiveSettings(script: ArchiveScript): ArchiveSettings {
  const out: ArchiveSettings = { settings: [], skipped: [] };
  const sources = [
    ...entriesOf(script, 'DATABASE PROPERTIES').map((e) => e.sql),
    ...entriesOf(script, 'COMMENT')
      .filter((e) => e.name.startsWith('DATABASE '))
      .map((e) => e.sql),
  ];
  for (const sql of sources) {
    // pg_restore prints its session preamble (SET ...; SELECT pg_catalog.set_config(...)) after each \connect: not the entry's.
    for (const text of splitStatements(sql).filter((t) => !/^(SET |SELECT pg_catalog\.set_config\()/.test(t))) {
      const tokens = tokenize(text);
      const stmt = tokens && statements(tokens)[0];
      const parsed = stmt && parseSetting(stmt);
      if (typeof parsed === 'object') out.settings.push(parsed);
      else
        out.skipped.push({
          statement: oneLine(text),
          reason: parsed ?? 'not a statement svc re-issues (only ALTER DATABASE ... SET, ALTER ROLE ... IN DATABASE ... SET and COMMENT ON DATABASE)',
        });
    }
  }
  return out;
}

/** Statements of an entry, split at ';' outside quotes. */
function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ';') {
      out.push(sql.slice(start, i + 1).trim());
      start = i + 1;
    }
  }
  if (sql.slice(start).trim()) out.push(sql.slice(start).trim());
  return out.filter(Boolean);
}

/** A parsed setting, a reason it is not applied, or undefined for a statement of another form. */
function parseSetting(t: SqlToken[]): DatabaseSetting | string | undefined {
  const word = (i: number, w: string) => isWord(t[i], w);
  const literal = t[5];
  if (word(0, 'comment') && word(1, 'on') && word(2, 'database') && t[3]?.kind === 'ident' && word(4, 'is') && t.length === 6 && literal?.kind === 'string') {
    const comment = literal.value;
    return { kind: 'comment', sql: (db) => `COMMENT ON DATABASE ${quoteIdent(db)} IS ${quoteLiteral(comment)};` };
  }
  if (!word(0, 'alter')) return undefined;
  if (word(1, 'database') && t[2]?.kind === 'ident') {
    if (word(3, 'set')) {
      const set = setClause(t.slice(4));
      return set && { kind: 'database', sql: (db) => `ALTER DATABASE ${quoteIdent(db)} ${set};` };
    }
    if (word(3, 'connection') || word(3, 'is_template') || word(3, 'allow_connections')) {
      return 'a connection limit or template flag belongs to the source server, not to a restored copy';
    }
    return undefined;
  }
  if (word(1, 'role') && t[2]?.kind === 'ident' && word(3, 'in') && word(4, 'database') && t[5]?.kind === 'ident' && word(6, 'set')) {
    const role = t[2].value;
    const set = setClause(t.slice(7));
    return set && { kind: 'role', role, sql: (db) => `ALTER ROLE ${quoteIdent(role)} IN DATABASE ${quoteIdent(db)} ${set};` };
  }
  return undefined;
}

/** `<name> TO <value>[, <value> ...]`, written back by svc: "SET name TO 'a', 'b'". */
function setClause(t: SqlToken[]): string | undefined {
  const [name, to, ...values] = t;
  if (name?.kind !== 'ident' || !isWord(to, 'to') || values.length === 0) return undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const comma = v.kind === 'punct' && v.value === ',';
    if (i % 2 === 1 ? !comma : v.kind === 'punct') return undefined;
  }
  if (values.length % 2 === 0) return undefined;
  return `SET ${quoteIdent(name.value)} TO ${values.map(writeToken).join(' ').replaceAll(' ,', ',')}`;
}

function oneLine(text: string): string {
  return text.replaceAll('\n', '\\n');
}

/**
 * Runs each setting on the restored database, one statement a time, as `env`'s role: the role that
 * restored the archive (cli-contract 7.16 a), so the server decides what the archive may set. A
 * setting it refuses (a parameter only a superuser may set, a role that role may not alter or that
 * does not exist, a value it rejects) is listed as not applied with the server's reason; it is not
 * fatal: the data is restored whole, and the restore says plainly what it could not carry over.
 * `connectTo`: where the statements run, when not in the database itself (one that may not accept svc after them).
 */
export async function applyDatabaseSettings(
  found: ArchiveSettings,
  database: string,
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
  connectTo = database,
): Promise<DatabaseSettingsReport> {
  const report: DatabaseSettingsReport = { applied: [], notApplied: [...found.skipped] };
  const statements = found.settings.map((s) => s.sql(database));
  let done = 0;
  try {
    // One session: the settings it applies take effect in later sessions only, never in this one.
    await onEnv({ env, database: connectTo, scrubber, signal, catalogOnly: true }, async (client) => {
      for (const sql of statements) {
        try {
          await client.query(sql);
          report.applied.push(sql);
        } catch (err) {
          const reason = refusalOf(err);
          if (reason === undefined) throw err;
          report.notApplied.push({ statement: sql, reason: scrubber.scrub(reason) });
        }
        done++;
      }
    });
  } catch (err) {
    if (!(err instanceof PgError)) throw err;
    const reason = err.reason.replace(/^ERROR:\s+/, '');
    for (const sql of statements.slice(done)) report.notApplied.push({ statement: sql, reason });
  }
  return report;
}
