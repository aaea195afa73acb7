import { LocalToolError } from '../../errors.js';
import { entriesOf, type ArchiveScript } from './archive-script.js';
import { quoteLiteral } from '../../pg/quote.js';
import { isWord, statements, tokenize, type SqlToken } from './sql-tokens.js';

/**
 * The source database's encoding and locale, from the archive's DATABASE entry (cli-contract 7.11):
 * `CREATE DATABASE x WITH TEMPLATE = template0 ENCODING = 'UTF8' LOCALE_PROVIDER = icu LOCALE = 'C'
 * ICU_LOCALE = 'de-DE';` in every form pg_dump 14 to 18 writes (LOCALE, or LC_COLLATE and LC_CTYPE
 * apart; ICU_LOCALE, ICU_RULES from 16, BUILTIN_LOCALE from 17). Keys as CREATE DATABASE spells them.
 */
export interface DatabaseOptions {
  ENCODING?: string;
  LOCALE?: string;
  LC_COLLATE?: string;
  LC_CTYPE?: string;
  LOCALE_PROVIDER?: string;
  ICU_LOCALE?: string;
  ICU_RULES?: string;
  BUILTIN_LOCALE?: string;
}

const KEYS = ['ENCODING', 'LOCALE', 'LC_COLLATE', 'LC_CTYPE', 'LOCALE_PROVIDER', 'ICU_LOCALE', 'ICU_RULES', 'BUILTIN_LOCALE'] as const;
type Key = (typeof KEYS)[number];
/** What else pg_dump may write there, and why svc does not pass it on. */
const DROPPED = new Set(['TEMPLATE', 'TABLESPACE', 'OID', 'COLLATION_VERSION', 'STRATEGY', 'OWNER', 'CONNECTION_LIMIT', 'IS_TEMPLATE', 'ALLOW_CONNECTIONS']);
/** The server major that first knows each option (CREATE DATABASE in its release notes). */
const SINCE: Partial<Record<Key, number>> = { LOCALE_PROVIDER: 15, ICU_LOCALE: 15, ICU_RULES: 16, BUILTIN_LOCALE: 17 };

/** The archive's database options; undefined where the archive has no DATABASE entry svc can read. */
export function databaseOptions(script: ArchiveScript): DatabaseOptions | undefined {
  const entry = entriesOf(script, 'DATABASE')[0];
  if (!entry) return undefined;
  // The entry goes on with ALTER DATABASE ... OWNER and, in a binary-upgrade dump, catalog updates: only its first statement.
  const start = entry.sql.indexOf('CREATE DATABASE ');
  if (start < 0) return undefined;
  const text = entry.sql.slice(start);
  const end = text.indexOf(';\n');
  const create = statements(tokenize(end < 0 ? text : text.slice(0, end + 1)) ?? [])[0];
  return create && parseCreateDatabase(create);
}

/** `CREATE DATABASE <ident> [WITH] KEY [=] value ...`: only string, word or number values. */
export function parseCreateDatabase(tokens: SqlToken[]): DatabaseOptions | undefined {
  if (!isWord(tokens[0], 'create') || !isWord(tokens[1], 'database') || tokens[2]?.kind !== 'ident') return undefined;
  let i = isWord(tokens[3], 'with') ? 4 : 3;
  const options: DatabaseOptions = {};
  while (i < tokens.length) {
    const key = tokens[i];
    if (key?.kind !== 'ident' || key.quoted) return undefined;
    i++;
    if (tokens[i]?.kind === 'punct' && tokens[i]!.value === '=') i++;
    const value = tokens[i++];
    if (!value || value.kind === 'punct') return undefined;
    const name = key.value.toUpperCase();
    if ((KEYS as readonly string[]).includes(name)) options[name as Key] = value.value;
    else if (!DROPPED.has(name)) return undefined;
  }
  // pg_dump 14 and older name no provider: theirs was always libc.
  options.LOCALE_PROVIDER = (options.LOCALE_PROVIDER ?? 'libc').toLowerCase();
  return options;
}

/** The locale a libc database collates by. */
export function libcCollate(o: DatabaseOptions): string | undefined {
  return o.LC_COLLATE ?? o.LOCALE;
}

/** "LATIN1, libc C" / "UTF8, icu de-DE (LC_COLLATE C)": for messages naming both sides. */
export function describeOptions(o: DatabaseOptions): string {
  const provider = o.LOCALE_PROVIDER ?? 'libc';
  const locale = provider === 'icu' ? o.ICU_LOCALE : provider === 'builtin' ? o.BUILTIN_LOCALE : undefined;
  const collate = libcCollate(o);
  const ctype = o.LC_CTYPE ?? o.LOCALE;
  const libc = collate === ctype ? collate : `LC_COLLATE ${collate}, LC_CTYPE ${ctype}`;
  return `${o.ENCODING ?? 'default encoding'}, ${provider} ${locale ?? libc ?? 'default'}${locale && libc ? ` (${libc})` : ''}`;
}

/**
 * The clauses after `CREATE DATABASE "target" TEMPLATE template0`, each value quoted as a literal
 * (quote.ts), never pasted into SQL as it was read. An option the target server is too old
 * for is exit 11 here, before anything is created.
 */
export function createClauses(o: DatabaseOptions, serverMajor: number, serverVersion: string): { sql: string } {
  const clauses: string[] = [];
  for (const key of KEYS) {
    const value = o[key];
    if (value === undefined) continue;
    const since = SINCE[key];
    if (since && serverMajor < since) {
      // A libc database from pg_dump 15+ says LOCALE_PROVIDER = libc: what an older server does anyway.
      if (key === 'LOCALE_PROVIDER' && value === 'libc') continue;
      throw new LocalToolError(
        `The archive's database was created with ${key} = '${value}', which PostgreSQL ${serverVersion} does not support (${since} or newer). Nothing was restored.`,
        `Restore into a PostgreSQL ${since} or newer server.`,
      );
    }
    clauses.push(`${key} ${quoteLiteral(value)}`);
  }
  return { sql: clauses.join(' ') };
}
