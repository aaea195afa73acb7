import { id, nonNegativeInt, timestamp } from '../api/schemas/common.js';
import { restoreModes } from '../api/schemas/restores.js';
import { engineOptions, guardTarget, restoreDeps, restorePlan } from '../commands/restore/engine-options.js';
import { dryRunDocument } from '../commands/restore/outcome.js';
import { selectionRule } from '../commands/restore/selection-options.js';
import { serviceCheck } from '../commands/restore/service-check.js';
import { UsageError } from '../errors.js';
import { shellCommand } from '../output/shell-quote.js';
import type { SelectionRule } from '../restore/backup-selection.js';
import { runRestore } from '../restore/run.js';
import { parseTarget, redactedDsn } from '../restore/target.js';
import * as z from '../zod.js';
import type { ToolContext } from './tools.js';
import { NOT_PITR } from './wording.js';

/** The dry run's --json document (`svc restore create --dry-run --json`), plus the command a person runs. */
export const planRestoreOutput = z.looseObject({
  dryRun: z.literal(true),
  backupJobId: z.nullable(id),
  backupSelection: z.nullable(
    z.looseObject({
      rule: z.enum(['id', 'latest', 'before', 'window']),
      before: z.optional(timestamp),
      windowId: z.optional(id),
      backupJobId: id,
      completedAt: z.nullable(timestamp),
    }),
  ),
  artifactBytes: z.nullable(nonNegativeInt),
  targetRedactedDsn: z.string(),
  mode: z.enum(restoreModes),
  createDatabase: z.boolean(),
  atomic: z.boolean(),
  jobs: z.int(),
  workDir: z.string(),
  pgRestore: z.string(),
  pgRestoreArgs: z.array(z.string()),
  /** For a person to run, in a terminal: the agent never restores (api-v1.md 4.3 rules 3 and 4). */
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

/** The same command line `svc restore create` would get, for the backup the dry run chose. */
function personCommand(backupJobId: string, target: string, inPlace: boolean, profile: string): string {
  return shellCommand([
    'svc',
    ...(profile === 'default' ? [] : ['--profile', profile]),
    'restore',
    'create',
    '--backup',
    backupJobId,
    '--target',
    target,
    ...(inPlace ? ['--in-place'] : []),
  ]);
}

/**
 * plan_restore: `svc restore create --dry-run` for an agent (cli-contract 10). The same selection
 * rules, the same local preflight, the same service check, the same document, from the restore
 * engine itself (runRestore without a create step restores nothing). A password never travels
 * through the agent: a target that holds one is refused; it belongs in PGPASSWORD, ~/.pgpass or
 * SVC_TARGET_DSN of the server's environment.
 */
export async function planRestore(args: PlanArgs, { session }: ToolContext): Promise<Record<string, unknown>> {
  const { rule }: { rule: SelectionRule } = selectionRule(
    { backup: args.backupJobId, database: args.databaseId, latest: args.latest, before: args.before, window: args.windowId },
    { defaultLatest: false },
  );
  const env = session.ctx.env;
  if (args.target !== undefined && parseTarget(args.target, env).password !== undefined) {
    throw new UsageError(
      'The target holds a password; a password is never given to an agent tool.',
      'Pass the URI without it, and keep the password in ~/.pgpass or PGPASSWORD (or the whole URI in SVC_TARGET_DSN) of the environment svc mcp serve runs in.',
    );
  }
  const opts = engineOptions({ target: args.target, inPlace: args.inPlace }, env);
  guardTarget(opts, session);
  const mode = args.inPlace ? 'in_place' : 'new_database';
  // The person who runs the command does it at a terminal, where an in-place restore is confirmed by typing the database name.
  const plan = { ...restorePlan(opts, mode, session), interactive: true };
  const result = await runRestore(plan, { check: () => serviceCheck(session, rule, true) }, restoreDeps(session));
  if (!result.dryRun) throw new Error('plan_restore ran more than a dry run');
  const doc = dryRunDocument(plan, result.check, result.preflight);
  const target = args.target ?? redactedDsn(opts.target);
  return {
    ...doc,
    command: personCommand(doc.backupJobId!, target, args.inPlace === true, session.settings.profile),
    note: `Nothing was created, downloaded or restored. A person runs the command in a terminal${args.inPlace ? ' and confirms the in-place restore by typing the database name' : ''}. ${NOT_PITR}`,
  };
}
