import type * as z from '../zod.js';
import { ContractError } from '../errors.js';

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(body)';
}

/** Validates a response body; a mismatch names the field(s) and the request id. */
export function parseResponse<S extends z.ZodMiniType>(schema: S, body: unknown, where: string, requestId: string | undefined): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const fields = result.error.issues
    .slice(0, 5)
    .map((issue) => `${formatPath(issue.path)}: ${issue.message}`)
    .join('; ');
  const more = result.error.issues.length > 5 ? ` (+${result.error.issues.length - 5} more)` : '';
  throw new ContractError(`The response of ${where} does not match the API contract: ${fields}${more}`, requestId);
}
