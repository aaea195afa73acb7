import { id } from '../api/schemas/common.js';
import { idempotencyKeySchema, isoTimestampSchema } from '../core/args.js';
import * as z from '../zod.js';

/**
 * The tools' inputs, built from the schemas the CLI checks its own arguments with (ids as the API
 * schemas have them, times and idempotency keys as commands/shared/args.ts checks them). A list
 * returns at most 100 items per call (cli-contract 10), whatever the service's page size.
 */
export const MAX_PAGE = 100;

const described = <S extends z.ZodMiniType>(schema: S, text: string): S => schema.check(z.describe(text)) as S;

const databaseId = described(id, 'protected database id, e.g. db_orders (list_databases)');
const page = {
  limit: z.optional(described(z.int().check(z.minimum(1), z.maximum(MAX_PAGE)), `items per call, 1 to ${MAX_PAGE}`)),
  cursor: z.optional(described(id, 'nextCursor of the previous call, for the next page')),
};

export const inputs = {
  none: z.strictObject({}),
  page: z.strictObject(page),
  databaseId: z.strictObject({ databaseId }),
  destinationId: z.strictObject({ destinationId: described(id, 'backup destination id (list_destinations)') }),
  databasePage: z.strictObject({ databaseId, ...page }),
  backupJobId: z.strictObject({ backupJobId: described(id, 'backup job id (list_backups)') }),
  evidencePage: z.strictObject({ databaseId: z.optional(databaseId), ...page }),
  restoreJobId: z.strictObject({ restoreJobId: described(id, 'restore job id, as svc restore create printed it') }),
  candidate: z.strictObject({ databaseId, incidentTime: described(isoTimestampSchema(), 'ISO 8601 time with a zone, e.g. 2026-11-20T14:30:00Z') }),
  windowId: z.strictObject({ windowId: described(id, 'recovery window id (get_recovery_summary, get_recovery_candidate)') }),
  trigger: z.strictObject({
    databaseId,
    idempotencyKey: z.optional(
      described(idempotencyKeySchema(), 'reuse the key a previous call returned to retry it without starting a second backup; omitted, the server makes one'),
    ),
  }),
  plan: z.strictObject({
    backupJobId: z.optional(described(id, 'the backup to restore, by id')),
    databaseId: z.optional(described(id, 'or: a database, with latest or before')),
    latest: z.optional(described(z.boolean(), "with databaseId: the database's newest completed backup")),
    before: z.optional(described(isoTimestampSchema(), 'with databaseId: the newest backup completed at or before this ISO 8601 time')),
    windowId: z.optional(described(id, "or: a recovery window's baseline backup")),
    target: z.optional(
      described(
        z.string().check(z.minLength(1)),
        'target PostgreSQL URI without a password, e.g. postgresql://app@db.internal:5432/orders_restored; omitted, SVC_TARGET_DSN of the server',
      ),
    ),
    inPlace: z.optional(described(z.boolean(), 'plan an in-place restore (replaces the target); the person confirms when they run it')),
  }),
};
