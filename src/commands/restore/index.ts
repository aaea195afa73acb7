import type { Command } from 'commander';
import { examples, prose, verb, type CommandHost } from '../shared/verb.js';

/** Registers the restore verbs on their group command (program.ts creates it). The engine loads only with create and run. */
export function registerRestore(restore: Command, host: CommandHost): void {
  restore
    .command('get')
    .description('Show a restore job with its proof flags (getRestore)')
    .argument('<restoreJobId>', 'restore job id')
    .option('--watch', 'poll until the job reaches a final state (exit 12 if it failed)')
    .option('--wait-timeout <seconds>', 'with --watch: give up after this long (exit 9)', '3600')
    .addHelpText('after', examples('svc restore get rj_123', 'svc restore get rj_123 --watch', 'svc restore get rj_123 --json | jq .restoreJob.proof'))
    .action(verb(host, () => import('./get.js')));

  const engineFlags = (c: Command): Command =>
    c
      .option('--target <dsn>', 'target database URI, postgresql://user@host:port/db (env: SVC_TARGET_DSN)')
      .option('--jobs <n>', 'parallel pg_restore jobs (default: CPUs, at most 4); for --in-place it gives up atomicity')
      .option('--work-dir <dir>', 'where the artifact is downloaded (default: the OS temp dir)')
      .option('--keep-artifact', 'keep the verified artifact file after the restore')
      .option('--connections <n>', 'parallel Range requests for an artifact of 64 MiB or more (1 to 16, default 8)')
      .option('--no-analyze', 'skip ANALYZE of the target after pg_restore')
      .option('--receipt <file>', 'write the restore receipt (JSON, no secrets) here, for failures too')
      .option('--in-place', 'replace the contents of the existing target database')
      .option('--confirm', 'confirm an --in-place restore without a prompt (required when not on a terminal)')
      .option('--keep-partial', 'keep a new database this run created when the restore fails or is interrupted (default: drop it)');

  engineFlags(
    restore
      .command('create')
      .description('Create a restore job (createRestore) and run it here: download, verify SHA-256, pg_restore')
      .option('--backup <backupJobId>', 'the completed backup job to restore')
      .option('--database <databaseId>', "with --latest or --before: choose among this database's completed backups")
      .option('--latest', 'with --database: its newest completed backup')
      .option('--before <iso8601>', 'with --database: its newest backup completed at or before this time')
      .option('--window <windowId>', 'the baseline backup of this recovery window (from svc recovery candidate or summary)'),
  )
    .option('--dry-run', 'run the preflight checks and print the plan; create nothing')
    .option('--idempotency-key <key>', 'key for createRestore (1-200 characters; default: a new UUID)')
    .addHelpText(
      'after',
      examples(
        'SVC_TARGET_DSN=postgresql://app@localhost:5432/orders_restored svc restore create --database db_123 --latest',
        'svc restore create --database db_123 --before 2026-11-24T14:32:00Z --target postgresql://app@localhost/orders_1432',
        'svc restore create --window rw_0003 --target postgresql://app@localhost/orders_incident',
        'svc restore create --backup bj_123 --target postgresql://app@db.internal/orders --in-place --confirm',
        'svc restore create --backup bj_123 --target postgresql://app@localhost/orders_check --dry-run',
      ),
    )
    .addHelpText(
      'after',
      prose(
        'new_database (default) creates the target database (TEMPLATE template0) and refuses a non-empty one.',
        "in_place drops and recreates the archive's objects in the existing database, in one transaction unless --jobs is given.",
      ),
    )
    .action(verb(host, () => import('./create.js')));

  engineFlags(
    restore
      .command('run')
      .description('Run the local restore engine on a createRestore response read from stdin (for automation)'),
  )
    .addHelpText('after', examples('curl ... -X POST $SVC_BASE_URL/api/v1/restores ... > restore.json && svc restore run --target "$DSN" < restore.json'))
    .action(verb(host, () => import('./run.js')));
}
