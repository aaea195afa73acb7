import { entriesOf, type ArchiveScript, type ScriptEntry } from './archive-script.js';
import { PG_EXTENSION, type Toc, type TocEntry } from './toc.js';

/** What an unprivileged restore leaves out, by name and why (cli-contract 7.14): never dropped silently. */
export interface NotRestored {
  type: string;
  name: string;
  reason: string;
}

/** Kinds only a superuser may create, whatever they hold. */
const SUPERUSER_KINDS: Record<string, string> = {
  'EVENT TRIGGER': 'only a superuser may create an event trigger',
  'FOREIGN DATA WRAPPER': 'only a superuser may create a foreign data wrapper',
  SERVER: 'a foreign server needs USAGE on its wrapper, which the restore role is not given',
  'USER MAPPING': 'a user mapping needs its foreign server, which is not restored',
  'FOREIGN TABLE': 'a foreign table needs its foreign server, which is not restored',
  SUBSCRIPTION: 'only a superuser may create a subscription',
  'SUBSCRIPTION TABLE': 'only a superuser may create a subscription',
  'PROCEDURAL LANGUAGE': 'only a superuser may create a procedural language (outside an extension)',
  'ACCESS METHOD': 'only a superuser may create an access method',
  'OPERATOR CLASS': 'only a superuser may create an operator class',
  'OPERATOR FAMILY': 'only a superuser may create an operator family',
  'TEXT SEARCH PARSER': 'only a superuser may create a text search parser',
  'TEXT SEARCH TEMPLATE': 'only a superuser may create a text search template',
  'PUBLICATION TABLES IN SCHEMA': 'only a superuser may publish every table of a schema',
};

/** The language of a function as pg_dump writes it: `    LANGUAGE <name>` on a line of its own, before the body. */
export function functionLanguage(sql: string): string | undefined {
  for (const line of sql.split('\n')) {
    if (/^\s*(AS\b|BEGIN ATOMIC\b)/i.test(line)) return undefined;
    const m = /^\s*LANGUAGE ("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)\s*$/.exec(line);
    if (m) return m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replaceAll('""', '"') : m[1]!.toLowerCase();
  }
  return undefined;
}

const qualified = (e: ScriptEntry) => (e.schema === '-' || e.schema === '' ? e.name : `${e.schema}.${e.name}`);

/**
 * The archive's entries that a role without superuser rights cannot create: the kinds above,
 * functions and procedures in a language the target does not trust (`trusted`: pg_language's
 * lanpltrusted, read after the extensions are created), and publications of all tables.
 */
export function unrestorable(script: ArchiveScript, trusted: ReadonlySet<string>): Array<NotRestored & { entry: ScriptEntry }> {
  const out: Array<NotRestored & { entry: ScriptEntry }> = [];
  for (const entry of script.entries) {
    const type = entry.type;
    let reason = SUPERUSER_KINDS[type];
    if (type === 'FUNCTION' || type === 'PROCEDURE') {
      const language = functionLanguage(entry.sql);
      if (language && !trusted.has(language)) reason = `language ${language} is not trusted: only a superuser may create its functions`;
    }
    if (type === 'PUBLICATION' && /\bFOR ALL TABLES\b/i.test(entry.sql.split('\n')[0] ?? '')) reason = 'only a superuser may create a publication FOR ALL TABLES';
    if (reason) out.push({ type, name: qualified(entry), reason, entry });
  }
  return out;
}

/** How `pg_restore -l` prints an entry's words ("schema name owner"), for matching a script entry to its dump id. */
const key = (desc: string, schema: string, name: string) => `${desc}\u0000${schema || '-'} ${name}`;
const tocKey = (e: TocEntry, words = e.words) => `${e.desc}\u0000${words}`;

/**
 * The dump ids to leave out of pg_restore: the entries of `left`, every COMMENT, SECURITY LABEL or
 * ACL on one of them (they would fail without it), the EXTENSION entries and their COMMENTs (the
 * scratch superuser created the extensions), and the SCHEMA entries it created first.
 */
export function leftOutIds(toc: Toc, left: ScriptEntry[], schemasCreated: string[]): Set<number> {
  const wanted = new Set<string>();
  const tags: Array<{ schema: string; tag: string }> = [];
  for (const e of left) {
    wanted.add(key(e.type, e.schema, e.name));
    tags.push({ schema: e.schema || '-', tag: `${e.type} ${e.name}` });
  }
  for (const s of schemasCreated) {
    wanted.add(key('SCHEMA', '-', s));
  }
  const ids = new Set<number>();
  for (const e of toc.entries) {
    if (e.tableoid === PG_EXTENSION && e.desc === 'EXTENSION') ids.add(e.dumpId);
    if (['COMMENT', 'SECURITY LABEL', 'ACL'].includes(e.desc)) {
      if (e.words.startsWith('- EXTENSION ')) ids.add(e.dumpId);
      if (tags.some((t) => e.words === `${t.schema} ${t.tag}` || e.words.startsWith(`${t.schema} ${t.tag} `))) ids.add(e.dumpId);
    }
    for (const w of wanted) {
      const k = tocKey(e);
      if (k === w || k.startsWith(`${w} `)) ids.add(e.dumpId);
    }
  }
  return ids;
}

/** The schemas the archive's extensions are created in that the archive also creates (SCHEMA entries). */
export function archiveSchemas(script: ArchiveScript): Set<string> {
  return new Set(entriesOf(script, 'SCHEMA').map((e) => e.name));
}
