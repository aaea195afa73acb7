import { entriesOf, type ArchiveScript, type ScriptEntry } from './archive-script.js';
import { readIdent } from '../../pg/quote.js';

/**
 * A role the archive names outside ownership and privileges (cli-contract 7.12): what
 * `--no-owner --no-privileges` do not cover, so the target must have it, or a drill creates it as a
 * NOLOGIN placeholder (9.9).
 */
export interface ArchiveRole {
  /** The role's name as the catalog spells it ("b c" for the archive's `"b c"`, `anon` for `ANON`). */
  name: string;
  /** The statements that need it, as a person finds them in the archive: "policy p_read on app.accounts". */
  neededBy: string[];
}

/** Role specifications that name no role. */
const NOT_ROLES = new Set(['public', 'current_user', 'session_user', 'current_role']);

/** Reads the archive's SQL word by word: identifiers (quoted or not), punctuation, spaces skipped. */
class Words {
  #at = 0;
  constructor(readonly text: string) {}

  #skip(): void {
    while (this.#at < this.text.length && /\s/.test(this.text[this.#at]!)) this.#at++;
  }

  /** The next identifier, or undefined (nothing taken) when the text goes on otherwise. */
  ident(): { name: string; quoted: boolean } | undefined {
    this.#skip();
    const id = readIdent(this.text.slice(this.#at));
    if (!id) return undefined;
    this.#at += id.length;
    return id;
  }

  /** Takes `word` (a keyword, case-insensitive, or punctuation) when it comes next. */
  take(word: string): boolean {
    this.#skip();
    const next = this.text.slice(this.#at, this.#at + word.length);
    const boundary = /\w/.test(word.at(-1)!) ? !/[\w$]/.test(this.text[this.#at + word.length] ?? '') : true;
    if (next.toUpperCase() !== word.toUpperCase() || !boundary) return false;
    this.#at += word.length;
    return true;
  }

  /** A possibly schema-qualified name. */
  qualified(): string[] | undefined {
    const parts: string[] = [];
    do {
      const id = this.ident();
      if (!id) return undefined;
      parts.push(id.name);
    } while (this.take('.'));
    return parts;
  }
}

/** `CREATE POLICY <name> ON <table> ... TO a, "b c"` up to USING, WITH CHECK or the end, as pg_dump writes it. */
export function readPolicy(sql: string): { policy: string; table: string; roles: string[] } | undefined {
  const w = new Words(sql);
  if (!w.take('CREATE') || !w.take('POLICY')) return undefined;
  const policy = w.ident();
  const table = policy && w.take('ON') ? w.qualified() : undefined;
  if (!policy || !table) return undefined;
  const found = { policy: policy.name, table: table.join('.'), roles: [] as string[] };
  if (w.take('AS') && !w.ident()) return found;
  if (w.take('FOR') && !w.ident()) return found;
  if (!w.take('TO')) return found;
  do {
    const id = w.ident();
    if (!id) break;
    found.roles.push(id.name);
  } while (w.take(','));
  return found;
}

/** The roles of a policy's `TO` list. */
export function policyRoles(sql: string): string[] {
  return readPolicy(sql)?.roles ?? [];
}

/**
 * `SET role TO 'x'` of a function or procedure: pg_dump writes each setting of proconfig on its
 * own line before the body (`AS $$...` or `BEGIN ATOMIC`), so nothing inside the body is read.
 */
export function functionRoles(sql: string): string[] {
  const roles: string[] = [];
  for (const line of sql.split('\n')) {
    if (/^\s*(AS\b|BEGIN ATOMIC\b)/i.test(line)) break;
    const m = /^\s*SET role TO '((?:[^']|'')*)'\s*;?\s*$/i.exec(line);
    if (m && m[1] !== 'none') roles.push(m[1]!.replaceAll("''", "'"));
  }
  return roles;
}

/** `CREATE USER MAPPING FOR <role> SERVER ...`. */
export function userMappingRoles(sql: string): string[] {
  const w = new Words(sql);
  if (!w.take('CREATE') || !w.take('USER') || !w.take('MAPPING') || !w.take('FOR')) return [];
  const id = w.ident();
  return id ? [id.name] : [];
}

const READERS: Array<{ type: string; kind: string; read: (sql: string) => string[] }> = [
  { type: 'POLICY', kind: 'policy', read: policyRoles },
  { type: 'FUNCTION', kind: 'function', read: functionRoles },
  { type: 'PROCEDURE', kind: 'procedure', read: functionRoles },
  { type: 'USER MAPPING', kind: 'user mapping', read: userMappingRoles },
];

/** "policy p_read on app.accounts", "function public.f()": where a person finds the statement. */
function describe(kind: string, e: ScriptEntry): string {
  if (kind === 'policy') {
    // The entry's name is "<table> <policy>", which a space in either makes ambiguous: named from the statement.
    const p = readPolicy(e.sql);
    return p ? `policy ${JSON.stringify(p.policy)} on ${p.table}` : `policy ${e.name} in schema ${e.schema}`;
  }
  return e.schema === '-' ? `${kind} ${e.name}` : `${kind} ${e.schema}.${e.name}`;
}

/** Every role the archive names in policies, functions' `SET role` and user mappings, each once, with what needs it. */
export function rolesNamed(script: ArchiveScript): ArchiveRole[] {
  const found = new Map<string, ArchiveRole>();
  for (const { type, kind, read } of READERS) {
    for (const entry of entriesOf(script, type)) {
      for (const name of read(entry.sql)) {
        if (NOT_ROLES.has(name.toLowerCase()) && !/[A-Z]/.test(name)) continue;
        const role = found.get(name) ?? { name, neededBy: [] };
        const what = describe(kind, entry);
        if (!role.neededBy.includes(what)) role.neededBy.push(what);
        found.set(name, role);
      }
    }
  }
  return [...found.values()];
}
