import type { Command } from 'commander';
import { addPagingOptions } from '../shared/paging-options.js';
import { examples, verb, type CommandHost } from '../shared/verb.js';

/** Registers the databases verbs on their group command (program.ts creates it). */
export function registerDatabases(databases: Command, host: CommandHost): void {
  addPagingOptions(databases.command('list').description('List protected databases (listDatabases)'))
    .addHelpText('after', examples('svc databases list', 'svc databases list --all --json | jq -r ".databases[].id"'))
    .action(verb(host, () => import('./list.js')));
  databases
    .command('get')
    .description('Show one protected database (getDatabase)')
    .argument('<databaseId>', 'database id')
    .addHelpText('after', examples('svc databases get db_123'))
    .action(verb(host, () => import('./get.js')));
}
