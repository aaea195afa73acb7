import type { Command } from 'commander';
import { examples, verb, type CommandHost } from '../shared/verb.js';

/** Registers the auth verbs on their group command (program.ts creates it). */
export function registerAuth(auth: Command, host: CommandHost): void {
  auth
    .command('login')
    .description('Store an API token in the OS keychain (or a 0600 file), after checking it with the service')
    .option('--with-token', 'read the token from standard input')
    // Declared only to refuse it with a clear message (argv is visible to every local user in `ps`),
    // so the usage line leaves it out.
    .argument('[token]')
    .usage('[options]')
    .addHelpText(
      'after',
      examples(
        'svc auth login --base-url https://backup.example.com',
        'svc auth login --profile prod --base-url https://backup.example.com',
        'printf %s "$SVC_TOKEN" | svc auth login --with-token',
      ),
    )
    .action(verb(host, () => import('./login.js')));
  auth
    .command('status')
    .description('Show the profile in use, where its token comes from, its key, organization, scopes and expiry')
    .option('--all', 'list every saved profile: base URL, token source, and whether the service still accepts it')
    .addHelpText('after', examples('svc auth status', 'svc auth status --all', 'svc --profile prod auth status --json'))
    .action(verb(host, () => import('./status.js')));
  auth
    .command('logout')
    .description("Remove the profile's stored token from the keychain and the credentials file")
    .addHelpText('after', examples('svc auth logout', 'svc auth logout --profile staging'))
    .action(verb(host, () => import('./logout.js')));
}
