import type { Command } from 'commander';
import { addPagingOptions } from '../shared/paging-options.js';
import { examples, verb, type CommandHost } from '../shared/verb.js';

/** Registers the destinations verbs on their group command (program.ts creates it). */
export function registerDestinations(destinations: Command, host: CommandHost): void {
  addPagingOptions(destinations.command('list').description('List backup destinations (listDestinations)'))
    .addHelpText('after', examples('svc destinations list', 'svc destinations list --all --json'))
    .action(verb(host, () => import('./list.js')));
  destinations
    .command('get')
    .description('Show one backup destination (getDestination)')
    .argument('<destinationId>', 'destination id')
    .addHelpText('after', examples('svc destinations get dst_123'))
    .action(verb(host, () => import('./get.js')));
}
