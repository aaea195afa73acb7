import { LocalToolError } from '../../errors.js';
import { tablespacesOf, type ArchiveScript } from '../archive/archive-script.js';
import { describeOptions, libcCollate, type DatabaseOptions } from '../archive/database-options.js';
import { redactedDsn, type Target } from './target.js';
import type { TargetCatalog } from './target-catalog.js';

/**
 * What the archive's database needs of the target server, checked in the verify phase, before a
 * new database is created or pg_restore runs (cli-contract 7.11, 7.12): its locales (exit 11 naming
 * each missing one and the closest the server has) and the tablespaces its objects name (exit 11
 * naming each, unless --no-tablespaces). In place, a database whose encoding or locale differ from
 * the archive's draws a warning naming both.
 */
export function assertTargetProvides(
  args: {
    script: ArchiveScript;
    options: DatabaseOptions | undefined;
    catalog: TargetCatalog;
    target: Target;
    mode: 'new_database' | 'in_place';
    noTablespaces: boolean;
  },
  warn: (message: string) => void,
): void {
  const { options, catalog, target } = args;
  const where = redactedDsn(target);
  if (options && args.mode === 'new_database') {
    const missing = missingLocales(options, catalog);
    if (missing.length) {
      const lines = missing.map((m) => `${m.provider} locale "${m.locale}" (closest there: ${m.closest.length ? m.closest.join(', ') : 'none'})`);
      throw new LocalToolError(
        `The archive's database uses ${lines.join('; ')}, which ${where} does not have. Nothing was restored.`,
        'Install the locale on the target server (for libc: the OS locale, then restart PostgreSQL; for ICU: a server built with ICU), or restore into a server that has it.',
      );
    }
  }
  if (options && args.mode === 'in_place' && catalog.database && differs(options, catalog.database)) {
    warn(
      `The target database is ${describeOptions(catalog.database)}; the archive's is ${describeOptions(options)}. ` +
        'In place, svc keeps the existing database: text, sort order and partition routing follow the target, not the backup.',
    );
  }
  const tablespaces = tablespacesOf(args.script);
  const absent = tablespaces.filter((t) => !catalog.tablespaces.includes(t));
  if (absent.length && !args.noTablespaces) {
    throw new LocalToolError(
      `The archive puts objects in ${absent.length === 1 ? 'a tablespace' : 'tablespaces'} that ${where} does not have: ${absent.join(', ')}. Nothing was restored.`,
      `Create ${absent.length === 1 ? 'it' : 'them'} on the target (CREATE TABLESPACE ${absent[0]} LOCATION '...'), or pass --no-tablespaces to restore everything into the default tablespace.`,
    );
  }
}

interface MissingLocale {
  provider: string;
  locale: string;
  closest: string[];
}

/** Each locale the archive's database names that the target's pg_collation lacks. */
export function missingLocales(o: DatabaseOptions, catalog: TargetCatalog): MissingLocale[] {
  const wanted: Array<[keyof TargetCatalog['locales'], string | undefined]> = [
    ['libc', o.LC_COLLATE ?? o.LOCALE],
    ['libc', o.LC_CTYPE ?? o.LOCALE],
    ['icu', o.LOCALE_PROVIDER === 'icu' ? o.ICU_LOCALE : undefined],
    ['builtin', o.LOCALE_PROVIDER === 'builtin' ? o.BUILTIN_LOCALE : undefined],
  ];
  const missing: MissingLocale[] = [];
  for (const [provider, locale] of wanted) {
    // pg_dump writes LOCALE (or LC_*) as the libc part whatever the provider, and the ICU or builtin locale apart.
    if (!locale) continue;
    const have = catalog.locales[provider];
    if (have.some((h) => sameLocale(h, locale)) || missing.some((m) => m.provider === provider && m.locale === locale)) continue;
    missing.push({ provider, locale, closest: closest(locale, have) });
  }
  return missing;
}

/** en_US.UTF-8 is en_US.utf8 (glibc normalises the codeset), de-DE is de_DE (ICU takes either). */
function normalise(locale: string): string {
  const [name = '', codeset] = locale.split('.', 2);
  return `${name.replaceAll('-', '_').toLowerCase()}${codeset ? `.${codeset.replaceAll('-', '').toLowerCase()}` : ''}`;
}

function sameLocale(a: string, b: string): boolean {
  return normalise(a) === normalise(b);
}

/** The five nearest names: the same language first, then by edit distance. */
export function closest(locale: string, have: string[]): string[] {
  const lang = (s: string) => normalise(s).split(/[_.@]/)[0];
  return [...have]
    .map((h) => ({ h, d: (lang(h) === lang(locale) ? 0 : 100) + distance(normalise(h), normalise(locale)) }))
    .sort((a, b) => a.d - b.d || a.h.localeCompare(b.h))
    .slice(0, 5)
    .map((x) => x.h);
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

function differs(archive: DatabaseOptions, target: DatabaseOptions): boolean {
  const norm = (s: string | undefined) => (s ? normalise(s) : '');
  return (
    norm(archive.ENCODING) !== norm(target.ENCODING) ||
    (archive.LOCALE_PROVIDER ?? 'libc') !== (target.LOCALE_PROVIDER ?? 'libc') ||
    norm(libcCollate(archive)) !== norm(libcCollate(target)) ||
    norm(archive.ICU_LOCALE) !== norm(target.ICU_LOCALE) ||
    norm(archive.BUILTIN_LOCALE) !== norm(target.BUILTIN_LOCALE)
  );
}
