import type { Command } from 'commander';
import { addPagingOptions } from '../shared/paging-options.js';
import { examples, verb, type CommandHost } from '../shared/verb.js';

/** Registers the backups verbs on their group command (program.ts creates it). */
export function registerBackups(backups: Command, host: CommandHost): void {
  addPagingOptions(backups.command('list').description("List a database's backup jobs (listDatabaseBackups)").argument('<databaseId>', 'database id'))
    .addHelpText('after', examples('svc backups list db_123', 'svc backups list db_123 --all --json'))
    .action(verb(host, () => import('./list.js')));
  backups
    .command('get')
    .description('Show a backup job and its artifact (getBackup)')
    .argument('<backupJobId>', 'backup job id')
    .addHelpText('after', examples('svc backups get bj_123', 'svc backups get bj_123 --json | jq .artifact.checksumSha256'))
    .action(verb(host, () => import('./get.js')));
  backups
    .command('trigger')
    .description('Start an ad-hoc backup job (triggerBackup); --wait follows it to the end')
    .argument('<databaseId>', 'database id')
    .option('--idempotency-key <key>', 'reuse a key to make a retried trigger safe (1-200 characters; default: a new UUID)')
    .option('--wait', 'poll the job until it completes or fails (exit 12 on failure)')
    .option('--wait-timeout <seconds>', 'give up waiting after this long (exit 9); the job goes on', '3600')
    .addHelpText(
      'after',
      examples('svc backups trigger db_123', 'svc backups trigger db_123 --wait', 'svc backups trigger db_123 --idempotency-key nightly-2026-11-21 --json'),
    )
    .action(verb(host, () => import('./trigger.js')));
}
