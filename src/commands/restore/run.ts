import type { Command } from 'commander';
import { getRestore } from '../api/operations.js';
import type { RestoreJob, RestoreJobState } from '../api/schemas/restores.js';
import type { Session } from '../session.js';
import { positiveSeconds, requireId } from './args.js';
import { assertSucceeded, POLL_INTERVAL_MS, pollUntilDone, type PollSpec } from './poll.js';
import { backupIdArg, runRestoreCreate, runRestoreRun, type RestoreFlags } from './restore-exec.js';
import { examples, type CommandHost } from './host.js';
import { restoreJobBlocks } from './restore-view.js';

const RESTORE_TERMINAL = new Set<RestoreJobState>(['completed', 'failed_terminal', 'cancelled', 'timed_out']);
const RESTORE_FAILED = new Set<RestoreJobState>(['failed_terminal', 'cancelled', 'timed_out']);

export async function runRestoreGet(session: Session, restoreJobId: string, watch?: { timeoutMs: number }): Promise<void> {
  const api = await session.api();
  if (!watch) {
    const { data } = await api.send(getRestore(restoreJobId));
    session.out.render(data, restoreJobBlocks(data.restoreJob, session.now()));
    return;
  }
  const spec: PollSpec<{ restoreJob: RestoreJob }> = {
    what: `Restore ${restoreJobId}`,
    fetch: async () => (await api.send(getRestore(restoreJobId))).data,
    state: (body) => body.restoreJob.state,
    terminal: RESTORE_TERMINAL,
    failed: RESTORE_FAILED,
    intervalMs: POLL_INTERVAL_MS,
    timeoutMs: watch.timeoutMs,
    describeFailure: (body) =>
      body.restoreJob.errorKind ? `${body.restoreJob.errorKind}: ${body.restoreJob.errorMessage ?? ''}`.trim() : 'no error detail given',
  };
  const body = await pollUntilDone(session, spec);
  session.out.render(body, restoreJobBlocks(body.restoreJob, session.now()));
  assertSucceeded(spec, body);
}

export function registerRestore(program: Command, host: CommandHost): Command {
  const restore = program.command('restore').description('Restore jobs, executed locally by this client');
  restore
    .command('get')
    .description('Show a restore job with its proof flags (getRestore)')
    .argument('<restoreJobId>', 'restore job id')
    .option('--watch', 'poll until the job reaches a final state (exit 12 if it failed)')
    .option('--wait-timeout <seconds>', 'with --watch: give up after this long (exit 9)', '3600')
    .addHelpText('after', examples('svc restore get rj_123', 'svc restore get rj_123 --watch', 'svc restore get rj_123 --json | jq .restoreJob.proof'))
    .action((id: string, flags: { watch?: boolean; waitTimeout: string }, cmd: Command) =>
      host.run(cmd, (s) =>
        runRestoreGet(
          s,
          requireId(id, 'restore job id'),
          flags.watch ? { timeoutMs: positiveSeconds(flags.waitTimeout, '--wait-timeout') * 1000 } : undefined,
        ),
      ),
    );

  const engineFlags = (c: Command): Command =>
    c
      .option('--target <dsn>', 'target database URI, postgresql://user@host:port/db (env: SVC_TARGET_DSN)')
      .option('--jobs <n>', 'parallel pg_restore jobs (default: CPUs, at most 4); for --in-place it gives up atomicity')
      .option('--work-dir <dir>', 'where the artifact is downloaded (default: the OS temp dir)')
      .option('--keep-artifact', 'keep the verified artifact file after the restore')
      .option('--in-place', 'replace the contents of the existing target database')
      .option('--confirm', 'confirm an --in-place restore without a prompt (required when not on a terminal)');

  engineFlags(
    restore
      .command('create')
      .description('Create a restore job (createRestore) and run it here: download, verify SHA-256, pg_restore')
      .requiredOption('--backup <backupJobId>', 'the completed backup job to restore'),
  )
    .option('--dry-run', 'run the preflight checks and print the plan; create nothing')
    .option('--idempotency-key <key>', 'key for createRestore (1-200 characters; default: a new UUID)')
    .addHelpText(
      'after',
      examples(
        'SVC_TARGET_DSN=postgresql://app@localhost:5432/orders_restored svc restore create --backup bj_123',
        'svc restore create --backup bj_123 --target postgresql://app@db.internal/orders --in-place --confirm',
        'svc restore create --backup bj_123 --target postgresql://app@localhost/orders_check --dry-run',
      ) +
        '\nnew_database (default) creates the target database (TEMPLATE template0) and refuses a non-empty one.\n' +
        'in_place drops and recreates the archive\'s objects in the existing database, in one transaction unless --jobs is given.\n',
    )
    .action((flags: RestoreFlags & { backup: string }, cmd: Command) =>
      host.run(cmd, (s) => runRestoreCreate(s, backupIdArg(flags.backup), flags)),
    );

  engineFlags(
    restore
      .command('run')
      .description('Run the local restore engine on a createRestore response read from stdin (for automation)'),
  )
    .addHelpText('after', examples('curl ... -X POST $SVC_BASE_URL/api/v1/restores ... > restore.json && svc restore run --target "$DSN" < restore.json'))
    .action((flags: RestoreFlags, cmd: Command) => host.run(cmd, (s) => runRestoreRun(s, flags)));
  return restore;
}
