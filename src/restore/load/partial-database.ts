import { randomUUID } from 'node:crypto';
import type { SecretScrubber } from '../../secrets.js';
import type { PartialDatabase } from '../failure.js';
import type { RestorePlan } from '../plan.js';
import { createdDatabaseExists, dropCreatedDatabase } from '../target/target-database.js';

type Env = Record<string, string | undefined>;

/**
 * How far a run got with the new database it creates: `planned` (CREATE DATABASE not sent yet),
 * `sent` under an application_name `tag` and not seen to finish, or `made`.
 */
export type Creation = { state: 'planned' } | { state: 'sent'; pgEnv: Env; tag: string } | { state: 'made'; pgEnv: Env };

/** A CREATE DATABASE about to be sent, under a tag of its own (so it can be found again after a signal). */
export function sending(pgEnv: Env): Creation & { state: 'sent' } {
  return { state: 'sent', pgEnv, tag: `svc-create-${randomUUID().slice(0, 8)}` };
}

/**
 * What becomes of the new database when pg_restore did not finish (cli-contract 7.6): dropped unless
 * --keep-partial. A CREATE DATABASE that was sent but not seen to finish is looked for first: svc says
 * that no database was created only when the server says so (cli-contract 4, v5).
 */
export async function settlePartial(plan: RestorePlan, creation: Creation, scrubber: SecretScrubber): Promise<PartialDatabase> {
  if (creation.state === 'planned') return { dropped: false, kept: false, created: false };
  if (creation.state === 'sent') {
    try {
      if (!(await createdDatabaseExists(plan.target, creation.pgEnv, creation.tag, scrubber))) return { dropped: false, kept: false, created: false };
    } catch (err) {
      return { dropped: false, kept: false, unknown: firstLine(err) };
    }
  }
  if (plan.keepPartial) return { dropped: false, kept: true };
  try {
    await dropCreatedDatabase(plan.target, creation.pgEnv, scrubber);
    return { dropped: true };
  } catch (err) {
    return { dropped: false, kept: false, reason: firstLine(err) };
  }
}

function firstLine(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
}
