import { z } from 'zod';
import type { PageParams } from '../api/operations.js';
import { UsageError } from '../errors.js';

/** Local checks before any request (cli-contract 3): a bad argument is exit 2 and nothing is sent. */
function check<T>(schema: z.ZodType<T>, raw: unknown, what: string, rule: string): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const shown = typeof raw === 'string' ? ` "${raw}"` : '';
    throw new UsageError(`Invalid ${what}${shown}: ${rule}.`);
  }
  return parsed.data;
}

export function requireId(raw: string | undefined, what: string): string {
  return check(z.string().trim().min(1), raw, what, 'it must not be empty');
}

const positiveInt = z.string().regex(/^\d+$/).transform(Number).pipe(z.int().positive().max(10_000));

export interface PageFlags {
  limit?: string;
  cursor?: string;
  all?: boolean;
}

export function pageParams(flags: PageFlags): PageParams & { all: boolean } {
  const limit = flags.limit === undefined ? undefined : check(positiveInt, flags.limit, '--limit', 'a whole number greater than 0');
  const cursor = flags.cursor === undefined ? undefined : requireId(flags.cursor, '--cursor');
  return { limit, cursor, all: flags.all === true };
}

export function isoTimestamp(raw: string | undefined, what: string): string {
  return check(z.iso.datetime({ offset: true }), raw, what, 'use ISO 8601 with a time zone, e.g. 2026-11-20T14:30:00Z');
}

export function idempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  return check(z.string().min(1).max(200), raw, '--idempotency-key', 'it must be 1 to 200 characters');
}
