import { randomUUID } from 'node:crypto';
import { triggerBackup } from '../api/operations/backups.js';
import { triggerBackupResponse } from '../api/schemas/backups.js';
import { idempotencyKeySchema } from '../core/args.js';
import { fetchCatalog, humanGate, toolKind } from '../core/catalog.js';
import { CliError } from '../errors.js';
import * as z from '../zod.js';
import type { ConfirmationChallenge } from './gate.js';
import type { ToolContext } from './tools.js';

export const triggerBackupOutput = z.strictObject({
  /** started: the service accepted it; confirmation_required: nobody could be asked, nothing was done; declined: the person said no. */
  outcome: z.enum(['started', 'confirmation_required', 'declined']),
  idempotencyKey: idempotencyKeySchema(),
  backup: z.optional(triggerBackupResponse),
  challenge: z.optional(z.strictObject({ humanGate: z.string(), catalogTool: z.string(), message: z.string(), command: z.string() })),
});

/**
 * trigger_backup: the live svc.backup.trigger (registered only where the catalog had it live at
 * start, and asked again at each call: the live catalog decides, api-v1.md 4.3 rule 2). One
 * idempotency key per logical request: the caller's, or one made here and returned, so the agent's
 * retry (and the client's own retries below it) never start a second backup. A human gate on the
 * catalog entry is asked through elicitation before anything is sent (rule 3).
 */
export async function triggerBackupTool(
  args: { databaseId: string; idempotencyKey?: string },
  { api, session, gate, signal }: ToolContext,
): Promise<Record<string, unknown>> {
  const idempotencyKey = args.idempotencyKey ?? randomUUID();
  const entry = (await fetchCatalog(session)).tools.find((t) => t.name === 'svc.backup.trigger');
  if (!entry || toolKind(entry) !== 'live') {
    throw new CliError(
      'tool_not_found',
      `The service's catalog no longer has svc.backup.trigger live (${entry ? toolKind(entry) : 'absent'}): nothing was sent.`,
      {
        hint: 'list_agent_tools shows the live catalog.',
      },
    );
  }
  const gateName = humanGate(entry);
  if (gateName !== '-') {
    const message = `Start an ad-hoc backup of database ${args.databaseId}? The service's catalog puts a human gate (${gateName}) on svc.backup.trigger.`;
    if (!gate.canAsk) {
      const challenge: ConfirmationChallenge = {
        humanGate: gateName,
        catalogTool: 'svc.backup.trigger',
        message: `${message} This client cannot ask the person, so nothing was done: show this to a person. They can run the command themselves.`,
        command: session.svcCommand(['backups', 'trigger', '--idempotency-key', idempotencyKey], [args.databaseId]),
      };
      return { outcome: 'confirmation_required', idempotencyKey, challenge };
    }
    if ((await gate.ask(message, signal)) === 'declined') return { outcome: 'declined', idempotencyKey };
  }
  const { data } = await api.send(triggerBackup(args.databaseId, idempotencyKey));
  return { outcome: 'started', idempotencyKey, backup: data };
}
