import { LocalToolError } from '../../errors.js';
import { sourceServerMajor, type ArchiveHeader } from '../archive/archive.js';
import { redactedDsn, type Target } from './target.js';
import type { TargetFacts } from './target-database.js';
import { extensionNames, type Toc } from '../archive/toc.js';

/**
 * The archive against the target server, before pg_restore touches it (cli-contract 7, step 5):
 * every extension it creates must be available there (else exit 11 naming each, nothing restored);
 * a server older than the one dumped from draws a warning, or fails where `olderServer` says so (a
 * drill proves a restore, and a restore into an older major proves little).
 */
export function assertArchiveFits(
  toc: Toc,
  header: ArchiveHeader,
  facts: TargetFacts,
  target: Target,
  olderServer: 'warn' | 'fail',
  warn: (message: string) => void,
): void {
  const where = `${redactedDsn(target)} (PostgreSQL ${facts.serverVersion})`;
  const missing = extensionNames(toc).filter((name) => !facts.extensions.includes(name));
  if (missing.length) {
    throw new LocalToolError(
      `The archive creates ${missing.length === 1 ? 'an extension' : 'extensions'} that ${where} does not have: ${missing.join(', ')}. Nothing was restored.`,
      'Install them on the target server (they must be listed in pg_available_extensions), or restore into a server that has them.',
    );
  }
  const source = sourceServerMajor(header);
  if (source === undefined || source <= facts.serverMajor) return;
  const message = `The archive was dumped from PostgreSQL ${header.serverVersion}; ${where} is an older major (${facts.serverMajor} < ${source}).`;
  if (olderServer === 'fail') throw new LocalToolError(`${message} Nothing was restored.`, `Restore into a PostgreSQL ${source} or newer server.`);
  warn(`${message} Objects that need the newer server may fail to restore.`);
}
