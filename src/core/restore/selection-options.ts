import { UsageError } from '../../errors.js';
import type { SelectionRule } from '../../restore/select/backup-selection.js';
import { isoTimestamp, requireId } from '../args.js';

/** How a restore or a drill names its backup (cli-contract 7, step 0). */
export interface SelectionFlags {
  backup?: string;
  database?: string;
  latest?: boolean;
  before?: string;
  window?: string;
}

export interface SelectionOptions {
  rule: SelectionRule;
}

const HOW =
  'Name the backup with --backup <backupJobId>, --database <databaseId> --latest, --database <databaseId> --before <ISO 8601>, or --window <windowId>.';

/**
 * Every local check of the selection flags, before any request: one way of naming the backup,
 * --latest and --before only with --database and not together, a well-formed time. --database alone
 * names no rule: a restore writes into a database of the user's, so which backup it takes is said.
 */
export function selectionRule(flags: SelectionFlags): SelectionOptions {
  const named = [flags.backup !== undefined && '--backup', flags.database !== undefined && '--database', flags.window !== undefined && '--window'].filter(
    (x): x is string => typeof x === 'string',
  );
  if (named.length > 1) throw new UsageError(`${named.join(' and ')} each name the backup: give one of them.`, HOW);
  if (flags.database === undefined && (flags.latest || flags.before !== undefined)) {
    throw new UsageError(`${flags.latest ? '--latest' : '--before'} picks among one database's backups: add --database <databaseId>.`, HOW);
  }
  if (flags.latest && flags.before !== undefined) throw new UsageError('--latest and --before are two rules: give one of them.', HOW);
  if (flags.backup !== undefined) return { rule: { rule: 'id', backupJobId: requireId(flags.backup, '--backup') } };
  if (flags.window !== undefined) return { rule: { rule: 'window', windowId: requireId(flags.window, '--window') } };
  if (flags.database === undefined) throw new UsageError('No backup named.', HOW);
  const databaseId = requireId(flags.database, '--database');
  if (flags.before !== undefined) return { rule: { rule: 'before', databaseId, before: isoTimestamp(flags.before, '--before') } };
  if (!flags.latest) throw new UsageError('--database needs a rule: add --latest for its newest completed backup, or --before <ISO 8601>.', HOW);
  return { rule: { rule: 'latest', databaseId } };
}

/** How a drill names its backups (cli-contract 9): its databases are arguments, not --database. */
export type DrillSelectionFlags = Pick<SelectionFlags, 'backup' | 'latest' | 'before'>;

/**
 * The drill's backup rule, checked once before any request: --backup (of the one database drilled),
 * --before a time, or by default each database's newest (a drill only restores into scratch databases).
 */
export function drillRule(flags: DrillSelectionFlags): (databaseId: string) => SelectionRule {
  if ([flags.backup !== undefined, flags.latest, flags.before !== undefined].filter(Boolean).length > 1) {
    throw new UsageError('--backup, --latest and --before each choose the backup: give one of them.');
  }
  if (flags.backup !== undefined) {
    const backupJobId = requireId(flags.backup, '--backup');
    return () => ({ rule: 'id', backupJobId });
  }
  if (flags.before === undefined) return (databaseId) => ({ rule: 'latest', databaseId });
  const before = isoTimestamp(flags.before, '--before');
  return (databaseId) => ({ rule: 'before', databaseId, before });
}
