import { LocalToolError } from '../../errors.js';
import type { ArchiveScript, ScriptEntry } from '../archive/archive-script.js';
import type { NotRestored } from './not-restored.js';
import type { Toc } from '../archive/toc.js';

/** One error pg_restore reported, and the entry it was restoring ("from TOC entry N; ..."). */
export interface EntryError {
  dumpId: number | undefined;
  /** The server's message without "ERROR:" ("must be owner of type integer"), or pg_restore's own. */
  message: string;
}

const FROM_ENTRY = /^pg_restore: from TOC entry (\d+); /;
const ERROR = /^pg_restore: error: (?:could not execute query: )?(?:ERROR: +)?(.*)$/;

/**
 * Reads pg_restore's stderr (with --verbose, which prints "from TOC entry" before an entry's first
 * error) into the errors of each entry. Without --exit-on-error pg_restore goes on after an error and
 * reports every failing entry this way, then "errors ignored on restore: N".
 */
export class EntryErrors {
  readonly errors: EntryError[] = [];
  #entry: number | undefined;

  line(text: string): void {
    const from = FROM_ENTRY.exec(text);
    if (from) {
      this.#entry = Number(from[1]);
      return;
    }
    const error = ERROR.exec(text);
    if (error) this.errors.push({ dumpId: this.#entry, message: error[1]!.trim() });
  }
}

/**
 * The server's refusal of a right the restoring role lacks (SQLSTATE 42501 and its kin), in the
 * words PostgreSQL 14 to 18 use: "must be owner of ...", "must be superuser to ...", "permission
 * denied ...". What needs a superuser is the server's to say, entry by entry, never a list of svc's.
 */
const REFUSAL = /^(must be owner of |must be superuser|permission denied)/;

const qualified = (e: ScriptEntry) => (e.schema === '-' || e.schema === '' ? e.name : `${e.schema}.${e.name}`);

/** The entry's kind and name, as the script's header names it ("public.my_ops"); else as the listing does. */
function describe(dumpId: number | undefined, toc: Toc, script: ArchiveScript): { type: string; name: string; bare: string } {
  const entry = toc.entries.find((e) => e.dumpId === dumpId);
  if (!entry) return { type: 'ENTRY', name: String(dumpId ?? '?'), bare: '' };
  // The listing prints "<schema> <name> <owner>", an entry without owner (a cast, a transform) with an empty one.
  const found = script.entries.find((s) => s.type === entry.desc && entry.words === `${s.schema || '-'} ${s.name} ${s.owner === '-' ? '' : s.owner}`);
  return found ? { type: entry.desc, name: qualified(found), bare: found.name } : { type: entry.desc, name: entry.words.trim(), bare: '' };
}

/**
 * What pg_restore could not restore because the server refused the role a right: each such entry is
 * listed with the server's reason, and so is an entry that failed only because a refused one is not
 * there (its comment: `event trigger "et" does not exist`). Any other error fails the restore, naming
 * each, as an error under --exit-on-error would (cli-contract 7.18).
 */
export function refusedEntries(errors: EntryError[], toc: Toc, script: ArchiveScript): NotRestored[] {
  const refused: Array<NotRestored & { bare: string }> = [];
  const other: string[] = [];
  for (const e of errors) {
    const what = describe(e.dumpId, toc, script);
    if (REFUSAL.test(e.message)) refused.push({ type: what.type, name: what.name, reason: e.message, bare: what.bare });
  }
  for (const e of errors) {
    if (REFUSAL.test(e.message)) continue;
    const what = describe(e.dumpId, toc, script);
    const cause = /does not exist/.test(e.message) ? refused.find((r) => r.bare && e.message.includes(`"${r.bare}"`)) : undefined;
    if (cause)
      refused.push({ type: what.type, name: what.name, reason: `${e.message}: ${cause.type.toLowerCase()} ${cause.name} was not restored`, bare: what.bare });
    else other.push(`${what.type.toLowerCase()} ${what.name}: ${e.message}`);
  }
  if (other.length) {
    throw new LocalToolError(
      `pg_restore reported ${other.length} error(s) that are not a refused privilege: ${other.slice(0, 10).join('; ')}${other.length > 10 ? '; ...' : ''}.`,
      'Fix the cause shown by pg_restore above, then run the restore again.',
    );
  }
  return refused.map(({ type, name, reason }) => ({ type, name, reason }));
}
