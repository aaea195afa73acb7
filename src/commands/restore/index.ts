import type { Command } from 'commander';
import { examples, prose, verb, type CommandHost } from '../shared/verb.js';

/** The help heading of the options a run seldom needs. */
const MORE_OPTIONS = 'More options:';

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

  // The common case first; the rest under "More options" (commander's help groups), so the help's
  // first screen is what most runs need.
  const engineFlags = (c: Command): Command =>
    c
      .option('--target <dsn>', 'target database URI, postgresql://user@host:port/db (env: SVC_TARGET_DSN)')
      .option(
        '--in-place',
        'replace the existing target database: restore beside it, then swap the names; the replaced one is kept as <name>_svc_before_<time>',
      )
      .option('--confirm', 'confirm an --in-place restore without a prompt (required when not on a terminal)')
      .optionsGroup(MORE_OPTIONS)
      .option('--jobs <n>', 'parallel pg_restore jobs (default: CPUs, at most 4), --in-place too')
      .option('--work-dir <dir>', 'where the artifact is downloaded (default: the OS temp dir)')
      .option('--keep-artifact', 'keep the verified artifact file after the restore')
      .option('--connections <n>', 'parallel Range requests for an artifact of 64 MiB or more (1 to 16, default 8)')
      .option('--no-analyze', 'skip ANALYZE of the target after pg_restore')
      .option('--receipt <file>', 'write the restore receipt (JSON, no secrets) here, for failures too')
      .option('--terminate-connections', "with --in-place: end the target's other sessions at the swap (default: exit 7 naming them)")
      .option('--drop-previous', 'with --in-place: drop the replaced database once the swap succeeded (default: keep it)')
      .option('--keep-partial', 'keep a new database this run created when the restore fails or is interrupted (default: drop it)')
      .option('--no-tablespaces', 'restore every object into the default tablespace, whatever tablespaces the archive names (pg_restore --no-tablespaces)')
      .option(
        '--database-settings',
        "with --in-place: apply the archive's database settings (ALTER DATABASE ... SET) and comment instead of the replaced database's (a new database always gets them)",
      );

  engineFlags(
    restore
      .command('create')
      .description('Create a restore job (createRestore) and run it here: download, verify SHA-256, pg_restore')
      .option('--backup <backupJobId>', 'the completed backup job to restore')
      .option('--database <databaseId>', "with --latest or --before: choose among this database's completed backups")
      .option('--latest', 'with --database: its newest completed backup')
      .option('--before <iso8601>', 'with --database: its newest backup completed at or before this time')
      .option('--window <windowId>', 'the baseline backup of this recovery window (from svc recovery candidate or summary)')
      .option('--dry-run', 'run the preflight checks and print the plan; create nothing'),
  )
    .option('--idempotency-key <key>', 'key for createRestore (1-200 characters; default: a new UUID)')
    .addHelpText(
      'after',
      examples(
        'svc restore create --database db_123 --latest --target postgresql://app@localhost/restored',
        'svc restore create --database db_123 --before 2026-11-24T14:32:00Z --target postgresql://localhost/orders_1432',
        'svc restore create --window rw_0003 --target postgresql://localhost/incident',
        'svc restore create --backup bj_123 --in-place --confirm --target postgresql://app@db.internal/orders',
        'svc restore create --backup bj_123 --dry-run --target postgresql://app@localhost/check',
      ),
    )
    .addHelpText(
      'after',
      prose(
        'new_database (default) creates the target database (TEMPLATE template0) and refuses a non-empty one.',
        "in_place restores into a new database beside the target (the role needs CREATEDB and must own the target), runs ANALYZE and the object check there, then swaps the names in one transaction, carrying over the target's owner, privileges, settings and comment. The replaced database is kept as <name>_svc_before_<YYYYMMDDHHMMSS> (two copies on disk until it is dropped); the result prints the commands that drop it or swap it back.",
      ),
    )
    .action(verb(host, () => import('./create.js')));

  engineFlags(restore.command('run').description('Run the local restore engine on a createRestore response read from stdin (for automation)'))
    .addHelpText('after', examples('curl ... -X POST $SVC_BASE_URL/api/v1/restores ... > restore.json && svc restore run --target "$DSN" < restore.json'))
    .action(verb(host, () => import('./run.js')));

  const drill = restore
    .command('drill')
    .description('Prove that backups restore: each into a throwaway scratch database, checked, reported (exit 13 if any fails)')
    .argument('[databaseIds...]', 'the databases to drill (or --all)')
    .option('--all', 'every database of the organization (all pages)')
    .option('--backup <backupJobId>', 'drill this backup (one database only)')
    .option('--latest', "each database's newest completed backup (the default)")
    .option('--before <iso8601>', 'the newest backup completed at or before this time')
    .option('--max-age <duration>', 'the recovery point objective: the backup may be at most this old (90m, 26h, 7d)')
    .option(
      '--check <file.sql>',
      'SQL checks, dbt style: "-- check: <name>" then a SELECT that passes when it returns no rows (repeatable)',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--report <dir>', 'write drill.json, drill.md, junit.xml and receipts/<databaseId>.json there')
    .option('--dry-run', 'print the plan (databases, backups, their age, the server binaries) and create nothing')
    .optionsGroup(MORE_OPTIONS)
    .option(
      '--scratch <auto|dsn>',
      'auto (the default): a throwaway local cluster; a postgresql:// DSN: your server, where svc creates and drops svc_drill_* databases',
    )
    .option('--pg-bindir <dir>', 'the server binaries (initdb, pg_ctl, postgres) for --scratch auto (env: SVC_PG_BINDIR)')
    .option(
      '--isolation <auto|required>',
      "for --scratch auto, keeping the cluster from svc's processes and files: auto (the default) takes what the machine allows, required is exit 11 where that is nothing",
    )
    .option('--parallel <n>', 'databases drilled at once, 1 to 8 (default 1)')
    .option('--shard <i/n>', "this runner's share: sorted by id, the k-th database belongs to shard (k mod n) + 1")
    .option('--metrics-file <file>', "write the results for Prometheus (node_exporter's textfile collector: name it *.prom in its directory)")
    .option('--pushgateway <url>', 'push the results to a Prometheus Pushgateway (group job=svc_restore_drill, shard=<i>_of_<n> or all)')
    .option('--keep', 'keep the scratch databases (and the cluster) for inspection, and print how to reach them')
    .option('--strict', 'fail restore_clean when the unprivileged restore had to leave objects out (event triggers, untrusted-language functions, ...)')
    .option('--jobs <n>', 'parallel pg_restore jobs per database (default: CPUs, at most 4)')
    .option('--connections <n>', 'parallel Range requests for an artifact of 64 MiB or more (1 to 16, default 8)')
    .option('--work-dir <dir>', 'where artifacts and the scratch cluster live (default: the OS temp dir)')
    .option('--no-analyze', 'skip ANALYZE after each restore')
    .option('--no-rows-check', "skip rows_match, which counts the archive's rows per table alongside the restore and compares them with the restored tables")
    .option(
      '--baseline <drill.json|dir>',
      "an earlier drill's report (one database's, a shard's or a merged one): no_drift fails a database whose tables shrank or vanished since",
    )
    .option('--drift-min-rows <n>', 'no_drift: a table smaller than this in the baseline may shrink by any share, though not vanish (default 1000)')
    .option('--max-shrink <percent>', 'no_drift: the share of its rows a table, or the whole database, may lose (default 50%)')
    .option(
      '--deadline <duration>',
      'start no database once this long has passed since the run began (50m in a 60-minute CI job); those left are reported not_run, exit 13',
    )
    .addHelpText(
      'after',
      examples(
        'svc restore drill db_orders',
        'svc restore drill --all --parallel 2 --max-age 26h --report drill-report',
        'svc restore drill db_orders --check checks/orders.sql --before 2026-11-24T14:32:00Z',
        'svc restore drill --all --shard 2/8 --report "report-2"',
        'svc restore drill --all --metrics-file /var/lib/node_exporter/svc_drill.prom',
        'svc restore drill --all --pushgateway http://pushgateway:9091',
        'svc restore drill --all --baseline previous-report --deadline 50m --report drill-report',
        'svc restore drill --all --dry-run --jq ".drill.databases[].backupJobId"',
        'svc restore drill db_orders --scratch postgresql://drill@scratch/postgres',
      ),
    )
    .addHelpText(
      'after',
      prose(
        "A drill restores each database's chosen backup into a new svc_drill_* database, checks it (backup_selected, artifact_verified, restore_clean, objects_present, data_present, rows_match, no_drift with --baseline, max_age, then each SQL check), and drops it again. Each database's result carries a fingerprint: its tables with rows and sizes, and a digest of its schema. The scratch cluster is started once and stopped at the end, also on failure and on Ctrl-C, after which the report, metrics file and push are still written, the databases not finished marked not_run. It never runs as your OS user where it could see svc's processes or files: as root it runs as the postgres user (on 127.0.0.1 only); as any other user in user, PID, mount and network namespaces of its own (bubblewrap, else unshare), reached on its Unix socket. Where the kernel allows no namespace, svc says so and runs it as you, unless --isolation required. The service is not told the result: API v1 has no operation for it.",
      ),
    )
    .action(verb(host, () => import('./drill.js')));

  drill
    .command('merge')
    .description("One organization's report from its shards' reports (exit 13 if a database failed or a shard is missing)")
    .argument('<reportDirs...>', "the shards' --report directories")
    .option('--report <dir>', 'write the merged drill.json, drill.md, junit.xml and receipts/ there')
    .addHelpText('after', examples('svc restore drill merge report-1 report-2 report-3 report-4 --report report'))
    .addHelpText(
      'after',
      prose(
        "Each shard's drill.json is checked against its schema (docs/drill.schema.json). The merge names any shard of the split (from the shards' i/n) that has no report, and any database reported twice (the later report is kept).",
      ),
    )
    .action(verb(host, () => import('./drill-merge.js')));
}
