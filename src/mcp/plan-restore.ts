import { engineOptions, guardTarget, restorePlan } from '../core/restore/engine-options.js';
import { dryRunDocument, dryRunDocumentSchema } from '../core/restore/dry-run-document.js';
import { selectionRule } from '../core/restore/selection-options.js';
import { serviceCheck } from '../core/restore/service-check.js';
import { UsageError } from '../errors.js';
import type { SelectionRule } from '../restore/select/backup-selection.js';
import { findClientTools } from '../restore/target/pg-restore-choice.js';
import { parseTarget, redactedDsn } from '../restore/target/target.js';
import { assertFreeSpace, assertWritableDir } from '../restore/download/workdir.js';
import type { Session } from '../session.js';
import * as z from '../zod.js';
import type { ToolContext } from './tools.js';
import { NOT_PITR } from './wording.js';

/** The plan of `svc restore create --dry-run --json` (its one schema, in the core) as far as it is known without the target, plus the commands a person runs. */
export const planRestoreOutput = z.extend(dryRunDocumentSchema, {
  /** For a person to run, in a terminal, in this order: the dry run (which checks the target), then the restore. */
  commands: z.array(z.string()),
  /** The restore itself, the last of `commands`: the agent never restores (api-v1.md 4.3 rules 3 and 4). */
  command: z.string(),
  note: z.string(),
});

interface PlanArgs {
  backupJobId?: string;
  databaseId?: string;
  latest?: boolean;
  before?: string;
  windowId?: string;
  target?: string;
  inPlace?: boolean;
}

/** The `svc restore create` a person runs for the backup the plan chose, without and with --dry-run. */
function personCommands(session: Session, backupJobId: string, target: string, inPlace: boolean): { dryRun: string; restore: string } {
  const words = ['restore', 'create', '--backup', backupJobId, '--target', target, ...(inPlace ? ['--in-place'] : [])];
  return { dryRun: session.svcCommand([...words, '--dry-run']), restore: session.svcCommand(words) };
}

/**
 * plan_restore (cli-contract 10, v5): what `svc restore create --dry-run` checks, except the target.
 * It asks the service what it can tell (the token may restore, the backup chosen by the same rules,
 * completed with an artifact) and the machine what it can (pg_restore and psql present, the work dir
 * writable with room for the artifact), and returns the commands a person runs, the dry run first.
 * It never connects to a database: the agent names the target, and a connection would hand it the
 * server's ambient credentials (PGPASSWORD, a pgpass or service file). A target carrying a password
 * is refused: a password never travels through an agent.
 */
export async function planRestore(args: PlanArgs, { session }: ToolContext): Promise<Record<string, unknown>> {
  const { rule }: { rule: SelectionRule } = selectionRule({
    backup: args.backupJobId,
    database: args.databaseId,
    latest: args.latest,
    before: args.before,
    window: args.windowId,
  });
  const env = session.ctx.env;
  if (args.target !== undefined && parseTarget(args.target, env).password !== undefined) {
    throw new UsageError(
      'The target holds a password; a password is never given to an agent tool.',
      'Pass the URI without it; the person who runs the command keeps the password in ~/.pgpass or PGPASSWORD (or the whole URI in SVC_TARGET_DSN).',
    );
  }
  const opts = engineOptions({ target: args.target, inPlace: args.inPlace }, env);
  guardTarget(opts, session);
  const plan = restorePlan(opts, args.inPlace ? 'in_place' : 'new_database', session);
  const pgRestore = await findClientTools(env);
  await assertWritableDir(plan.workDir);
  const check = await serviceCheck(session, rule, true);
  await assertFreeSpace(plan.workDir, check.artifactBytes ?? 0);
  const doc = dryRunDocument(plan, check, { pgRestore, createDatabase: null });
  const commands = personCommands(session, doc.backupJobId!, args.target ?? redactedDsn(opts.target), args.inPlace === true);
  return {
    ...doc,
    commands: [commands.dryRun, commands.restore],
    command: commands.restore,
    note:
      'Nothing was created, downloaded or restored, and no database was contacted: the target is checked by the first command, the dry run, ' +
      `which a person runs in a terminal before the restore${args.inPlace ? ' (confirmed by typing the database name)' : ''}. ${NOT_PITR}`,
  };
}
