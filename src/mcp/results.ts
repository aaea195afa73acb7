import { CliError, isCliError } from '../errors.js';
import type { SecretScrubber } from '../secrets.js';

/** No result exceeds this (cli-contract 10): a client's context is not a place for megabytes. */
export const MAX_RESULT_BYTES = 256 * 1024;

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The validated JSON as structuredContent, and the same compactly as text for clients that read only text. */
export function okResult(data: Record<string, unknown>, scrubber: SecretScrubber): ToolResult {
  const text = scrubber.scrubKnown(JSON.stringify(data));
  if (Buffer.byteLength(text) > MAX_RESULT_BYTES) {
    return errorResult(
      new CliError('response_too_large', `The result is larger than ${MAX_RESULT_BYTES / 1024} KiB, more than a tool returns.`, {
        hint: 'Ask for fewer items: a smaller limit, then the next pages with cursor.',
      }),
      scrubber,
    );
  }
  return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
}

/**
 * A failure as a tool error (isError), in the CLI's --json error envelope (cli-contract 4): the
 * code, the message, the request id, and for a 403 the required scope and the next action; for a
 * 429 also when to try again. Never a secret: the scrubber runs over it.
 */
export function errorResult(err: unknown, scrubber: SecretScrubber): ToolResult {
  const e = isCliError(err) ? err : new CliError('unexpected', `Unexpected failure: ${err instanceof Error ? err.message : String(err)}`);
  const d = e.details;
  const envelope = {
    error: {
      code: d.code,
      message: e.message,
      requestId: d.requestId ?? null,
      status: d.status ?? null,
      ...(d.requiredScope ? { requiredScope: d.requiredScope } : {}),
      nextAction: d.nextAction ?? d.hint ?? null,
      ...(d.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: d.retryAfterSeconds }),
    },
  };
  return { content: [{ type: 'text', text: scrubber.scrub(JSON.stringify(envelope)) }], isError: true };
}
