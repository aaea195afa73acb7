import { Command, Option } from 'commander';
import { registerAuth } from './commands/auth.js';
import { registerBackups } from './commands/backups.js';
import { registerDatabases } from './commands/databases.js';
import { registerDestinations } from './commands/destinations.js';
import { registerEvidence } from './commands/evidence.js';
import { examples, type CommandHost } from './commands/host.js';
import { registerProfile } from './commands/profile.js';
import { registerRecovery } from './commands/recovery.js';
import { registerRestore } from './commands/restore.js';
import { registerSandbox } from './commands/sandbox.js';
import { registerTools } from './commands/tools.js';
import { VERSION } from './version.js';

/** The commander root with the global options of cli-contract 1, accepted before or after the subcommand. */
export function buildProgram(host: CommandHost): Command {
  const program = new Command('svc')
    .description('Command-line client and client-local restore executor for the Backup Protection Service API v1')
    .version(VERSION, '-V, --version')
    .addOption(new Option('--base-url <url>', 'service root; /api/v1 is appended (env: SVC_BASE_URL)'))
    .option('--json', 'print exactly one JSON document on stdout')
    .option('--quiet', 'no progress, hints or warnings on stderr (errors still print)')
    .option('--verbose', 'one stderr line per HTTP exchange, never a secret (env: SVC_DEBUG=1)')
    .option('--timeout <seconds>', 'per-request timeout in seconds (env: SVC_TIMEOUT, default 30)')
    .option('--max-retries <n>', 'retries for network errors, timeouts, 429 and 5xx (default 4)')
    .option('--no-color', 'no colour (env: NO_COLOR)')
    .showSuggestionAfterError()
    .addHelpText(
      'after',
      `${examples(
        'svc auth login --base-url https://backup.example.com',
        'svc databases list',
        'svc backups trigger db_123 --wait',
        'svc evidence get bj_123',
        'SVC_TARGET_DSN=postgresql://app@localhost/restored svc restore create --backup bj_123',
      )}
Environment: SVC_API_KEY, SVC_BASE_URL, SVC_TIMEOUT, SVC_DEBUG, SVC_TARGET_DSN, NO_COLOR, XDG_CONFIG_HOME.
Exit codes: 0 ok, 1 unexpected, 2 usage, 3 auth, 4 permission, 5 not found, 6 conflict, 7 precondition,
8 rate limited, 9 unavailable, 10 artifact integrity, 11 local restore tool, 12 job failed, 130 interrupted.
`,
    );

  registerAuth(program, host);
  registerProfile(program, host);
  registerDatabases(program, host);
  registerDestinations(program, host);
  registerBackups(program, host);
  registerEvidence(program, host);
  registerRestore(program, host);
  registerRecovery(program, host);
  registerTools(program, host);
  registerSandbox(program, host);
  return program;
}
