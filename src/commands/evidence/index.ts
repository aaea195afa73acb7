import type { Command } from 'commander';
import { addPagingOptions } from '../shared/paging-options.js';
import { examples, verb, type CommandHost } from '../shared/verb.js';

/** Registers the evidence verbs on their group command (program.ts creates it). */
export function registerEvidence(evidence: Command, host: CommandHost): void {
  addPagingOptions(
    evidence.command('list').description('List evidence items (listEvidence)').option('--database <databaseId>', 'only evidence of this database'),
  )
    .addHelpText('after', examples('svc evidence list --database db_123', 'svc evidence list --all --json'))
    .action(verb(host, () => import('./list.js')));
  evidence
    .command('get')
    .description('Show the evidence of one backup job (getEvidence)')
    .argument('<backupJobId>', 'backup job id')
    .addHelpText('after', examples('svc evidence get bj_123'))
    .action(verb(host, () => import('./get.js')));
}
