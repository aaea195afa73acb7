import type { Command } from 'commander';
import { examples, type CommandHost } from '../host.js';

/** The work lives in ./run.js, loaded only when one of these commands runs. */
const load = () => import('./run.js');

/** Adds the tools verbs to their group command (program.ts creates it). */
export function registerTools(tools: Command, host: CommandHost): void {
  tools
    .command('list')
    .description('List tools: live, no live route, or advisory, with their human gates')
    .addHelpText('after', examples('svc tools list', 'svc tools list --json'))
    .action((_f, cmd: Command) => host.run(cmd, load, (m, s) => m.runToolsList(s)));
  tools
    .command('get')
    .description('Show one tool of the catalog')
    .argument('<name>', 'tool name, e.g. svc.backup.trigger')
    .addHelpText('after', examples('svc tools get svc.backup.trigger'))
    .action((name: string, _f, cmd: Command) => host.run(cmd, load, (m, s) => m.runToolsGet(s, name)));
}
