import type { Command } from 'commander';
import type { PageFlags } from '../args.js';
import { examples, type CommandHost } from '../host.js';
import { allOption, cursorOption, limitOption } from '../paging-options.js';

/** The work lives in ./run.js, loaded only when one of these commands runs. */
const load = () => import('./run.js');

/** Adds the evidence verbs to their group command (program.ts creates it). */
export function registerEvidence(evidence: Command, host: CommandHost): void {
  evidence
    .command('list')
    .description('List evidence items (listEvidence)')
    .option('--database <databaseId>', 'only evidence of this database')
    .addOption(limitOption())
    .addOption(cursorOption())
    .addOption(allOption())
    .addHelpText('after', examples('svc evidence list --database db_123', 'svc evidence list --all --json'))
    .action((flags: PageFlags & { database?: string }, cmd: Command) => host.run(cmd, load, (m, s) => m.runEvidenceList(s, flags)));
  evidence
    .command('get')
    .description('Show the evidence of one backup job (getEvidence)')
    .argument('<backupJobId>', 'backup job id')
    .addHelpText('after', examples('svc evidence get bj_123'))
    .action((id: string, _flags, cmd: Command) => host.run(cmd, load, (m, s) => m.runEvidenceGet(s, id)));
}
