import type { Command } from 'commander';
import { examples, type CommandHost } from '../host.js';

export function registerProfile(program: Command, host: CommandHost): void {
  program
    .command('profile')
    .description('Show the API key in use: organization, scopes, expiry (getProfile)')
    .addHelpText('after', examples('svc profile', 'svc profile --json | jq -r .profile.scopes[]'))
    .action((_opts, cmd: Command) => host.run(cmd, () => import('./run.js'), (m, s) => m.runProfile(s)));
}
