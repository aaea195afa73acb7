import * as z from '../zod.js';
import type { PageParams } from '../api/operations/common.js';
import { UsageError } from '../errors.js';

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

const positiveIntString = z.lazySchema(() => z.pipe(z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number)), z.int().check(z.positive())));

export interface PageOptions extends PageParams {
  all: boolean;
  /** False with --no-headers: the table without its header row. */
  headers: boolean;
}

export interface PageFlags {
  limit?: string;
  cursor?: string;
  all?: boolean;
  headers?: boolean;
}

export function pageOptions(flags: PageFlags): PageOptions {
  const limit = flags.limit === undefined ? undefined : positiveInt(flags.limit, '--limit', 10_000);
  const cursor = flags.cursor === undefined ? undefined : requireId(flags.cursor, '--cursor');
  return { limit, cursor, all: flags.all === true, headers: flags.headers !== false };
}

/** An ISO 8601 time with a zone: --incident-time, --before (and the agent server's same inputs). */
export const isoTimestampSchema = z.lazySchema(() => z.iso.datetime({ offset: true }));

export function isoTimestamp(raw: string | undefined, what: string): string {
  return check(isoTimestampSchema(), raw, what, 'use ISO 8601 with a time zone, e.g. 2026-11-20T14:30:00Z');
}

/** A wall-clock time as if it were UTC, in ms: what a local reading of `t` shows. */
const wallOf = (d: Date) => Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds());

/** "+01:00" for a UTC offset of 60 minutes. */
function offsetText(minutes: number): string {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/**
 * A time a person types (--incident-time): ISO 8601 with a space allowed for the T; one without a
 * zone is read in this machine's time zone, and `zone` says so. A date alone, a wall-clock time the
 * clocks skip or pass twice (a DST change), and anything else is refused: svc does not guess.
 */
export function typedTimestamp(raw: string | undefined, what: string): { iso: string; zone?: string } {
  // "2026-11-27 22:00Z": a space for the T, and minutes without seconds, as a person writes it.
  const text = (raw ?? '')
    .trim()
    .replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, '$1T')
    .replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(?=Z|[+-]\d{2}:\d{2}$)/, '$1:00');
  if (isoTimestampSchema().safeParse(text).success) return { iso: text };
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(text);
  const wall = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0), +(m[7] ?? '0').padEnd(3, '0')) : NaN;
  const valid = m && new Date(wall).toISOString().startsWith(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}`);
  if (!valid) {
    const rule = 'use ISO 8601, e.g. 2026-11-20T14:30:00Z, or a date and time like "2026-11-20 15:30" read in this machine\'s time zone';
    return { iso: check(isoTimestampSchema(), raw, what, rule) };
  }
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'local time';
  // Each offset in force near that time, kept where the local clock really shows that time there.
  const offsets = new Set([-3, 0, 3].map((h) => new Date(wall + h * 3_600_000).getTimezoneOffset()));
  const instants = [...offsets].map((off) => wall + off * 60_000).filter((t) => wallOf(new Date(t)) === wall);
  const shown = `"${raw}"`;
  if (instants.length === 0)
    throw new UsageError(
      `Invalid ${what} ${shown}: that time does not exist in ${tz} (the clocks skip it).`,
      'Give the time with its offset, e.g. 2026-11-20T14:30:00+01:00.',
    );
  if (instants.length > 1)
    throw new UsageError(
      `Ambiguous ${what} ${shown}: in ${tz} that time happens twice (the clocks go back).`,
      'Give the time with its offset, e.g. 2026-11-20T14:30:00+01:00.',
    );
  const instant = new Date(instants[0]!);
  const iso = instant.toISOString().replace('.000Z', 'Z');
  return {
    iso,
    zone: `${what} ${(raw ?? '').trim()} has no time zone: read in this machine's, ${tz} (UTC${offsetText(-instant.getTimezoneOffset())}), as ${iso}.`,
  };
}

/** Sent as an HTTP header: only printable ASCII, without leading or trailing spaces, can go there as given. */
export const idempotencyKeySchema = z.lazySchema(() =>
  z.string().check(z.minLength(1), z.maxLength(200), z.regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/)),
);

export function idempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  return check(idempotencyKeySchema(), raw, '--idempotency-key', 'it must be 1 to 200 printable ASCII characters (no leading or trailing space)');
}

const MAX_WAIT_SECONDS = 7 * 24 * 3600;
/** Plain decimal seconds, as a person writes them: no hex, exponents or padding. */
const decimalString = z.lazySchema(() => z.pipe(z.string().check(z.regex(/^\d+(\.\d+)?$/)), z.transform(Number)));

export function positiveSeconds(raw: string | undefined, what: string): number {
  return check(
    z.pipe(decimalString(), z.number().check(z.positive(), z.maximum(MAX_WAIT_SECONDS))),
    raw,
    what,
    `a positive number of seconds, at most ${MAX_WAIT_SECONDS} (7 days)`,
  );
}

export function positiveInt(raw: string | undefined, what: string, max: number): number {
  return check(z.pipe(positiveIntString(), z.int().check(z.maximum(max))), raw, what, `a whole number from 1 to ${max}`);
}
