import { entriesOf, type ArchiveScript } from './archive-script.js';
import type { NotRestored } from '../load/not-restored.js';
import { isWord, statements, tokenize } from './sql-tokens.js';

/** A comment on an extension, as the archive's entry gives it: the extension's name and the text. */
export interface ArchiveComment {
  extension: string;
  comment: string;
}

/**
 * The archive's `COMMENT ON EXTENSION <ident> IS '<literal>';` entries, read strictly, for the
 * superuser who created the extensions to apply (svc writes the statement again, the name and the
 * text its own values): the restoring role does not own them, and a comment is text, not code
 * (cli-contract 7.18). An entry of any other form is listed, never run nor dropped silently.
 */
export function extensionComments(script: ArchiveScript): { comments: ArchiveComment[]; notRestored: NotRestored[] } {
  const out = { comments: [] as ArchiveComment[], notRestored: [] as NotRestored[] };
  for (const e of entriesOf(script, 'COMMENT').filter((c) => c.name.startsWith('EXTENSION '))) {
    // pg_restore prints the session settings of the next entries (SET default_tablespace = '';) after it.
    const tokens = tokenize(
      e.sql
        .split('\n')
        .filter((line) => !/^SET [a-z_]+ = [^;]*;$/.test(line) && !line.startsWith('SELECT pg_catalog.set_config('))
        .join('\n'),
    );
    const [t] = tokens ? statements(tokens) : [];
    const ok =
      t?.length === 6 &&
      isWord(t[0], 'comment') &&
      isWord(t[1], 'on') &&
      isWord(t[2], 'extension') &&
      t[3]!.kind === 'ident' &&
      isWord(t[4], 'is') &&
      t[5]!.kind === 'string';
    if (ok && tokens && statements(tokens).length === 1) out.comments.push({ extension: t[3]!.value, comment: t[5]!.value });
    else out.notRestored.push({ type: 'COMMENT', name: e.name, reason: 'not a COMMENT ON EXTENSION statement as pg_dump writes it: svc does not run it' });
  }
  return out;
}
