import * as z from 'zod';
import { normalizeBaseUrl } from './api/base-url.js';
import { readConfig } from './config/config-file.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';

/** Global options as commander hands them over (cli-contract 1). */
export interface GlobalFlags {
  baseUrl?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  timeout?: string;
  maxRetries?: string;
  color?: boolean;
}

export interface Settings {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  timeoutMs: number;
  maxRetries: number;
  color: boolean;
}

const timeoutSeconds = z.coerce.number().positive().max(3600);
const retries = z.coerce.number().int().min(0).max(20);

function numberOption<T>(schema: z.ZodType<T>, raw: string, flag: string, rule: string): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`${flag} must be ${rule}, got "${raw}".`);
  return parsed.data;
}

export function resolveSettings(flags: GlobalFlags, env: Record<string, string | undefined>): Settings {
  const timeout = flags.timeout ?? env.SVC_TIMEOUT ?? '30';
  return {
    json: flags.json === true,
    quiet: flags.quiet === true,
    verbose: flags.verbose === true || env.SVC_DEBUG === '1',
    timeoutMs: numberOption(timeoutSeconds, timeout, '--timeout', 'a positive number of seconds') * 1000,
    maxRetries: numberOption(retries, flags.maxRetries ?? '4', '--max-retries', 'a whole number from 0 to 20'),
    color: flags.color !== false,
  };
}

/** --base-url, then SVC_BASE_URL, then the config file written by `svc auth login --base-url`. */
export async function resolveBaseUrl(flags: GlobalFlags, ctx: Context): Promise<string> {
  const raw = flags.baseUrl ?? ctx.env.SVC_BASE_URL ?? (await readConfig(ctx.env)).baseUrl;
  if (!raw) {
    throw new UsageError(
      'No service base URL is configured.',
      'Pass --base-url https://..., set SVC_BASE_URL, or run `svc auth login --base-url https://...` once.',
    );
  }
  return normalizeBaseUrl(raw);
}
