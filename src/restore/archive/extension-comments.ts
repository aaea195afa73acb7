import { entriesOf, type ArchiveScript } from './archive-script.js';
import type { NotRestored } from '../load/not-restored.js';
import { quoteIdent, quoteLiteral } from '../../pg/quote.js';
import { isWord, statements, tokenize } from './sql-tokens.js';

/**
 * The archive's `COMMENT ON EXTENSION <ident> IS '<literal>';` entries, read strictly and written
 * again by svc (the name re-quoted, the text a literal), for the superuser who created the
 * extensions to apply: the restoring role does not own them, and a comment is text, not code
 * (cli-contract 7.18). An entry of any other form is listed, never run nor dropped silently.
 */
export function extensionComments(script: ArchiveScript): { sql: string[]; notRestored: NotRestored[] } {
  const out = { sql: [] as string[], notRestored: [] as NotRestored[] };
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
    if (ok && tokens && statements(tokens).length === 1) out.sql.push(`COMMENT ON EXTENSION ${quoteIdent(t[3]!.value)} IS ${quoteLiteral(t[5]!.value)};`);
    else out.notRestored.push({ type: 'COMMENT', name: e.name, reason: 'not a COMMENT ON EXTENSION statement as pg_dump writes it: svc does not run it' });
  }
  return out;
}
