import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { examples, type CommandHost } from '../host.js';

/** The work lives in ./run.js, loaded only when one of these commands runs. */
const load = () => import('./run.js');

/** Adds the auth verbs to their group command (program.ts creates it). */
export function registerAuth(auth: Command, host: CommandHost): void {
  auth
    .command('login')
    .description('Store an API token in the OS keychain (or a 0600 file), after checking it with the service')
    .option('--with-token', 'read the token from standard input')
    // Declared only to refuse it with a clear message: argv is visible to every local user in `ps`.
    .argument('[token]')
    .addHelpText(
      'after',
      examples(
        'svc auth login --base-url https://backup.example.com',
        'printf %s "$SVC_TOKEN" | svc auth login --with-token',
      ),
    )
    .action((token: string | undefined, flags: { withToken?: boolean }, cmd: Command) =>
      host.run(cmd, load, (m, s) => {
        if (token !== undefined) {
          throw new UsageError(
            'A token is never accepted on the command line (other users can read it in the process list). Nothing was stored.',
            'Pipe it in: printf %s "$TOKEN" | svc auth login --with-token, or run svc auth login in a terminal.',
          );
        }
        return m.runAuthLogin(s, { withToken: flags.withToken === true, baseUrlFlag: cmd.optsWithGlobals().baseUrl !== undefined });
      }),
    );
  auth
    .command('status')
    .description('Show where the token comes from, its key, organization, scopes and expiry')
    .addHelpText('after', examples('svc auth status', 'svc auth status --json'))
    .action((_f, cmd: Command) => host.run(cmd, load, (m, s) => m.runAuthStatus(s)));
  auth
    .command('logout')
    .description('Remove the stored token from the keychain and the credentials file')
    .addHelpText('after', examples('svc auth logout'))
    .action((_f, cmd: Command) => host.run(cmd, load, (m, s) => m.runAuthLogout(s)));
}
