import type { Command } from 'commander';
import type { PageFlags } from '../args.js';
import { examples, type CommandHost } from '../host.js';
import { allOption, cursorOption, limitOption } from '../paging-options.js';

/** The work lives in ./run.js, loaded only when one of these commands runs. */
const load = () => import('./run.js');

/** Adds the databases verbs to their group command (program.ts creates it). */
export function registerDatabases(databases: Command, host: CommandHost): void {
  databases
    .command('list')
    .description('List protected databases (listDatabases)')
    .addOption(limitOption())
    .addOption(cursorOption())
    .addOption(allOption())
    .addHelpText('after', examples('svc databases list', 'svc databases list --all --json | jq -r ".databases[].id"'))
    .action((flags: PageFlags, cmd: Command) => host.run(cmd, load, (m, s) => m.runDatabasesList(s, flags)));
  databases
    .command('get')
    .description('Show one protected database (getDatabase)')
    .argument('<databaseId>', 'database id')
    .addHelpText('after', examples('svc databases get db_123'))
    .action((id: string, _flags, cmd: Command) => host.run(cmd, load, (m, s) => m.runDatabasesGet(s, id)));
}
