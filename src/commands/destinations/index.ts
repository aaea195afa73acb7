import type { Command } from 'commander';
import type { PageFlags } from '../args.js';
import { examples, type CommandHost } from '../host.js';
import { allOption, cursorOption, limitOption } from '../paging-options.js';

/** The work lives in ./run.js, loaded only when one of these commands runs. */
const load = () => import('./run.js');

/** Adds the destinations verbs to their group command (program.ts creates it). */
export function registerDestinations(destinations: Command, host: CommandHost): void {
  destinations
    .command('list')
    .description('List backup destinations (listDestinations)')
    .addOption(limitOption())
    .addOption(cursorOption())
    .addOption(allOption())
    .addHelpText('after', examples('svc destinations list', 'svc destinations list --all --json'))
    .action((flags: PageFlags, cmd: Command) => host.run(cmd, load, (m, s) => m.runDestinationsList(s, flags)));
  destinations
    .command('get')
    .description('Show one backup destination (getDestination)')
    .argument('<destinationId>', 'destination id')
    .addHelpText('after', examples('svc destinations get dst_123'))
    .action((id: string, _flags, cmd: Command) => host.run(cmd, load, (m, s) => m.runDestinationsGet(s, id)));
}
