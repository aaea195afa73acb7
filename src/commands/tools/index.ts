import type { Command } from 'commander';
import { examples, verb, type CommandHost } from '../shared/verb.js';

/** Registers the tools verbs on their group command (program.ts creates it). */
export function registerTools(tools: Command, host: CommandHost): void {
  tools
    .command('list')
    .description('List tools: live, no live route, or advisory, with their human gates')
    .addHelpText('after', examples('svc tools list', 'svc tools list --json'))
    .action(verb(host, () => import('./list.js')));
  tools
    .command('get')
    .description('Show one tool of the catalog')
    .argument('<name>', 'tool name, e.g. svc.backup.trigger')
    .addHelpText('after', examples('svc tools get svc.backup.trigger'))
    .action(verb(host, () => import('./get.js')));
}
