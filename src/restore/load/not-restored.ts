import { entriesOf, type ArchiveScript } from '../archive/archive-script.js';
import { PG_EXTENSION, type Toc } from '../archive/toc.js';

/** What an unprivileged restore leaves out, by name and why (cli-contract 7.14, 7.18): never dropped silently. */
export interface NotRestored {
  type: string;
  name: string;
  reason: string;
}

/**
 * The dump ids to leave out of pg_restore: what the scratch superuser made before it (the EXTENSION
 * entries and the COMMENTs on them, applied then; the SCHEMA entries it created for the extensions).
 * Nothing else: what the restoring role may not create, the server refuses entry by entry (refusals.ts).
 */
export function leftOutIds(toc: Toc, schemasCreated: string[]): Set<number> {
  const ids = new Set<number>();
  for (const e of toc.entries) {
    if (e.tableoid === PG_EXTENSION && e.desc === 'EXTENSION') ids.add(e.dumpId);
    if (e.desc === 'COMMENT' && e.words.startsWith('- EXTENSION ')) ids.add(e.dumpId);
    // The listing prints "- <name> <owner>".
    if (e.desc === 'SCHEMA' && schemasCreated.some((s) => e.words.startsWith(`- ${s} `))) ids.add(e.dumpId);
  }
  return ids;
}

/** The schemas the archive's extensions are created in that the archive also creates (SCHEMA entries). */
export function archiveSchemas(script: ArchiveScript): Set<string> {
  return new Set(entriesOf(script, 'SCHEMA').map((e) => e.name));
}
