import * as z from '../../zod.js';
import type { PageParams } from '../../api/operations/common.js';
import { UsageError } from '../../errors.js';

/** Local checks before any request (cli-contract 3): a bad argument is exit 2 and nothing is sent. */
function check<T>(schema: z.ZodMiniType<T>, raw: unknown, what: string, rule: string): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const shown = typeof raw === 'string' ? ` "${raw}"` : '';
    throw new UsageError(`Invalid ${what}${shown}: ${rule}.`);
  }
  return parsed.data;
}

export function requireId(raw: string | undefined, what: string): string {
  const id = check(z.string().check(z.trim(), z.minLength(1)), raw, what, 'it must not be empty');
  // "." and ".." are URL dot segments (even percent-encoded): the request would silently go to another route.
  if (id === '.' || id === '..') throw new UsageError(`Invalid ${what} "${id}": "." and ".." cannot name a resource.`);
  return id;
}

const positiveIntString = z.pipe(z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number)), z.int().check(z.positive()));

export interface PageOptions extends PageParams {
  all: boolean;
}

export interface PageFlags {
  limit?: string;
  cursor?: string;
  all?: boolean;
}

export function pageOptions(flags: PageFlags): PageOptions {
  const limit = flags.limit === undefined ? undefined : positiveInt(flags.limit, '--limit', 10_000);
  const cursor = flags.cursor === undefined ? undefined : requireId(flags.cursor, '--cursor');
  return { limit, cursor, all: flags.all === true };
}

/** An ISO 8601 time with a zone: --incident-time, --before (and the agent server's same inputs). */
export const isoTimestampSchema = z.iso.datetime({ offset: true });

export function isoTimestamp(raw: string | undefined, what: string): string {
  return check(isoTimestampSchema, raw, what, 'use ISO 8601 with a time zone, e.g. 2026-11-20T14:30:00Z');
}

/** Sent as an HTTP header: only printable ASCII, without leading or trailing spaces, can go there as given. */
export const idempotencyKeySchema = z.string().check(z.minLength(1), z.maxLength(200), z.regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/));

export function idempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  return check(
    idempotencyKeySchema,
    raw,
    '--idempotency-key',
    'it must be 1 to 200 printable ASCII characters (no leading or trailing space)',
  );
}

const MAX_WAIT_SECONDS = 7 * 24 * 3600;
/** Plain decimal seconds, as a person writes them: no hex, exponents or padding. */
const decimalString = z.pipe(z.string().check(z.regex(/^\d+(\.\d+)?$/)), z.transform(Number));

export function positiveSeconds(raw: string | undefined, what: string): number {
  return check(z.pipe(decimalString, z.number().check(z.positive(), z.maximum(MAX_WAIT_SECONDS))), raw, what, `a positive number of seconds, at most ${MAX_WAIT_SECONDS} (7 days)`);
}

export function positiveInt(raw: string | undefined, what: string, max: number): number {
  return check(z.pipe(positiveIntString, z.int().check(z.maximum(max))), raw, what, `a whole number from 1 to ${max}`);
}
