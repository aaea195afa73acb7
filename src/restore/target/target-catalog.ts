import { LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { PgError } from '../../pg/errors.js';
import { queryTarget } from '../../pg/target-session.js';
import type { DatabaseOptions } from '../archive/database-options.js';
import { redactedDsn, type Target } from './target.js';
import { onMaintenanceDb } from './target-database.js';

type Env = Record<string, string | undefined>;

/** What the target server offers the archive's database (cli-contract 7.11, 7.12). */
export interface TargetCatalog {
  /** pg_collation: each provider's locales ('c' libc, 'i' icu, 'b' builtin). */
  locales: { libc: string[]; icu: string[]; builtin: string[] };
  /** pg_tablespace. */
  tablespaces: string[];
  /** in_place: the existing database's encoding and locale. */
  database?: DatabaseOptions;
}

/**
 * One round trip. Columns that differ between majors (colliculocale in 15 and 16, colllocale from
 * 17, datlocprovider from 15) are read through to_jsonb, so one query serves 14 to 18.
 */
const CATALOG_SQL = `SELECT json_build_object(
  'locales', (SELECT coalesce(json_agg(json_build_array(c.collprovider, coalesce(j->>'colllocale', j->>'colliculocale', j->>'collcollate'))), '[]')
              FROM pg_collation c, to_jsonb(c) j),
  'tablespaces', (SELECT json_agg(spcname ORDER BY spcname) FROM pg_tablespace),
  'database', (SELECT json_build_object('encoding', pg_encoding_to_char(d.encoding), 'collate', d.datcollate, 'ctype', d.datctype,
                 'provider', j->>'datlocprovider', 'locale', coalesce(j->>'datlocale', j->>'daticulocale'))
               FROM pg_database d, to_jsonb(d) j WHERE d.datname = current_database())) AS catalog`;

interface RawCatalog {
  locales: Array<[string, string | null]>;
  tablespaces: string[];
  database: { encoding: string; collate: string | null; ctype: string | null; provider: string | null; locale: string | null };
}

const PROVIDERS: Record<string, string> = { c: 'libc', i: 'icu', b: 'builtin' };

export async function readTargetCatalog(
  target: Target,
  mode: 'new_database' | 'in_place',
  env: Env,
  scrubber: SecretScrubber,
  signal: AbortSignal,
): Promise<TargetCatalog> {
  // In the target database itself (in place), names resolve in pg_catalog only, whatever its search_path says.
  const query = async (database: string) =>
    (await queryTarget<{ catalog: RawCatalog }>(target, { env, database, scrubber, signal, catalogOnly: mode === 'in_place' }, CATALOG_SQL))[0]!.catalog;
  let raw: RawCatalog;
  try {
    raw = mode === 'in_place' ? await query(target.database) : await onMaintenanceDb(query);
  } catch (err) {
    if (!(err instanceof PgError)) throw err;
    throw new LocalToolError(`Could not read the locales and tablespaces of ${redactedDsn(target)}: ${err.reason}`);
  }
  const locales: TargetCatalog['locales'] = { libc: ['C', 'POSIX'], icu: [], builtin: [] };
  for (const [p, name] of raw.locales) {
    const list = locales[(PROVIDERS[p] ?? 'libc') as keyof TargetCatalog['locales']];
    if (name && !list.includes(name)) list.push(name);
  }
  const catalog: TargetCatalog = { locales, tablespaces: raw.tablespaces };
  if (mode === 'in_place') {
    const d = raw.database;
    const provider = PROVIDERS[d.provider ?? 'c'] ?? 'libc';
    catalog.database = {
      ENCODING: d.encoding,
      LOCALE_PROVIDER: provider,
      ...(d.collate === d.ctype ? { LOCALE: d.collate ?? undefined } : { LC_COLLATE: d.collate ?? undefined, LC_CTYPE: d.ctype ?? undefined }),
      ...(provider === 'icu' && d.locale ? { ICU_LOCALE: d.locale } : {}),
      ...(provider === 'builtin' && d.locale ? { BUILTIN_LOCALE: d.locale } : {}),
    };
  }
  return catalog;
}
