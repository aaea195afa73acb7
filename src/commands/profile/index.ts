import type { Command } from 'commander';
import { examples, verb, type CommandHost } from '../shared/verb.js';

/** `svc profile`: a single-verb command. */
export function registerProfile(program: Command, host: CommandHost): void {
  program
    .command('profile')
    .description('Show the API key in use: organization, scopes, expiry (getProfile)')
    .addHelpText('after', examples('svc profile', 'svc profile --json | jq -r .profile.scopes[]'))
    .action(verb(host, () => import('./get.js')));
}
