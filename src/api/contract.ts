import * as z from '../zod.js';
import { ContractError } from '../errors.js';

/**
 * Each response schema's parser for this run: the schema itself the first time, zod's compiled
 * clone (z.compile: the same results and issues, several times faster) from the second on. The
 * pages of --all and --paginate's items parse one schema thousands of times; a command that parses
 * a schema once does not pay to compile it.
 */
const parsers = new WeakMap<z.ZodMiniType, z.ZodMiniType | undefined>();

function parserOf<S extends z.ZodMiniType>(schema: S): S {
  if (!parsers.has(schema)) {
    parsers.set(schema, undefined);
    return schema;
  }
  let compiled = parsers.get(schema);
  if (!compiled) parsers.set(schema, (compiled = z.compile(schema)));
  return compiled as S;
}

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
  const result = parserOf(schema).safeParse(body);
  if (result.success) return result.data;
  const fields = result.error.issues
    .slice(0, 5)
    .map((issue) => `${formatPath(issue.path)}: ${issue.message}`)
    .join('; ');
  const more = result.error.issues.length > 5 ? ` (+${result.error.issues.length - 5} more)` : '';
  throw new ContractError(`The response of ${where} does not match the API contract: ${fields}${more}`, requestId);
}
