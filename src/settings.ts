import * as z from './zod.js';
import { normalizeBaseUrl } from './api/base-url.js';
import { DEFAULT_PROFILE, readProfile } from './config/config-file.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { svcCommand } from './output/shell-quote.js';

/** Global options as commander hands them over (cli-contract 1). */
export interface GlobalFlags {
  baseUrl?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  timeout?: string;
  maxRetries?: string;
  color?: boolean;
  profile?: string;
  jq?: string;
}

export interface Settings {
  /** --profile, else SVC_PROFILE, else "default" (cli-contract 2). */
  profile: string;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  timeoutMs: number;
  maxRetries: number;
  color: boolean;
  /** --jq: a jq expression applied to the JSON document; implies json. */
  jq: string | undefined;
}

/** Plain decimals only (no hex or exponents); whole milliseconds, since timers take integers. */
const timeoutSeconds = z.lazySchema(() =>
  z.pipe(
    z.pipe(z.pipe(z.string().check(z.regex(/^\d+(\.\d+)?$/)), z.transform(Number)), z.number().check(z.positive(), z.maximum(3600))),
    z.transform((s: number) => Math.max(1, Math.round(s * 1000))),
  ),
);
const retries = z.lazySchema(() => z.pipe(z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number)), z.int().check(z.minimum(0), z.maximum(20))));
/** What --timeout and --max-retries are when neither they nor SVC_TIMEOUT is given: nothing to check, so no schema is built. */
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRIES = 4;

function numberOption<T>(schema: z.ZodMiniType<T>, raw: string, flag: string, rule: string): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`${flag} must be ${rule}, got "${raw}".`);
  return parsed.data;
}

export function resolveSettings(flags: GlobalFlags, env: Record<string, string | undefined>): Settings {
  const timeout = flags.timeout ?? env.SVC_TIMEOUT;
  const where = flags.timeout !== undefined ? '--timeout' : 'SVC_TIMEOUT';
  return {
    profile: profileName(flags.profile ?? env.SVC_PROFILE),
    json: flags.json === true || flags.jq !== undefined,
    jq: flags.jq,
    quiet: flags.quiet === true,
    verbose: flags.verbose === true || env.SVC_DEBUG === '1',
    timeoutMs: timeout === undefined ? DEFAULT_TIMEOUT_MS : numberOption(timeoutSeconds(), timeout, where, 'a positive number of seconds, at most 3600'),
    maxRetries: flags.maxRetries === undefined ? DEFAULT_RETRIES : numberOption(retries(), flags.maxRetries, '--max-retries', 'a whole number from 0 to 20'),
    color: flags.color !== false,
  };
}

const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function profileName(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULT_PROFILE;
  if (!PROFILE_NAME.test(raw)) {
    throw new UsageError(`Invalid profile name "${raw}": use 1 to 64 letters, digits, "-" or "_".`);
  }
  return raw;
}

/** --base-url, then SVC_BASE_URL, then the base URL the profile saved at `svc auth login`. */
export async function resolveBaseUrl(flags: GlobalFlags, ctx: Pick<Context, 'env'>, profile: string): Promise<string> {
  const raw = flags.baseUrl ?? ctx.env.SVC_BASE_URL ?? (await readProfile(ctx.env, profile)).baseUrl;
  if (!raw) {
    const which = profile === DEFAULT_PROFILE ? '' : ` for profile "${profile}"`;
    throw new UsageError(
      `No service base URL is configured${which}.`,
      `Pass --base-url https://..., set SVC_BASE_URL, or run \`${svcCommand(['auth', 'login', '--base-url', 'https://...'], { profile: profile === DEFAULT_PROFILE ? undefined : profile })}\` once.`,
    );
  }
  return normalizeBaseUrl(raw);
}
