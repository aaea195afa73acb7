import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { API_BODY_LIMIT, BodyTooLarge, readBounded } from '../../api/body.js';
import { UsageError } from '../../errors.js';

/** A -f field: a JSON value given inline, or the text of a file (`@path`, `@-` for stdin), read by run(). */
export type Field = { key: string; value: unknown } | { key: string; file: string };

/** Bodies read from a file or stdin are bounded like response bodies: memory never follows the input. */
const INPUT_LIMIT = API_BODY_LIMIT;

/** JSON's number grammar (RFC 8259 6), whole: "1e3" and "-0.5" are numbers, "0x10", "1." and " 1" are not. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A -f value, typed the way `gh api -F` types it: true, false, null and numbers become JSON values,
 * a JSON string in double quotes becomes that string (so `-f 'id="123"'` sends "123"), `@file`
 * the text of a file; anything else is the string as typed. An integer too large for a JSON
 * number to carry exactly stays the string it was, rather than arriving rounded.
 */
function field(raw: string): Field {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new UsageError(`-f "${raw}": a field is key=value.`, 'For example: -f trigger=adhoc');
  const key = raw.slice(0, eq);
  const text = raw.slice(eq + 1);
  if (text.startsWith('@')) {
    const file = text.slice(1);
    if (file === '') throw new UsageError(`-f ${key}=@: name the file to read the value from, or @- for stdin.`);
    return { key, file };
  }
  if (text === 'true' || text === 'false' || text === 'null') return { key, value: JSON.parse(text) };
  if (JSON_NUMBER.test(text)) {
    const n = Number(text);
    const exact = Number.isFinite(n) && (!/^-?\d+$/.test(text) || Number.isSafeInteger(n));
    return { key, value: exact ? n : text };
  }
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      return { key, value: JSON.parse(text) as string };
    } catch {
      throw new UsageError(`-f ${key}=${text}: a value in double quotes must be a JSON string.`);
    }
  }
  return { key, value: text };
}

export function fields(raw: string[]): Field[] {
  const parsed = raw.map(field);
  const keys = new Set<string>();
  for (const f of parsed) {
    if (keys.has(f.key)) throw new UsageError(`-f ${f.key} is given twice.`);
    keys.add(f.key);
  }
  if (parsed.filter((f) => 'file' in f && f.file === '-').length > 1) throw new UsageError('Only one -f value can be read from stdin (@-).');
  return parsed;
}

/** What requestParts needs of the options. */
export interface BodySource {
  method: 'GET' | 'POST';
  fields: Field[];
  input: string | undefined;
}

/** A file's or stdin's text, bounded; a name that cannot be read is the user's to fix (exit 2). */
async function readSource(source: string, stdin: Readable, what: string): Promise<string> {
  const shown = source === '-' ? 'stdin' : `"${source}"`;
  try {
    return await readBounded(source === '-' ? stdin : createReadStream(source), INPUT_LIMIT);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new UsageError(`${what} from ${shown} is larger than ${INPUT_LIMIT / 1024 / 1024} MiB.`);
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot read ${what} from ${shown}${code ? ` (${code})` : ''}.`);
  }
}

/** Everything the request carries, read and checked before anything is sent: a POST body, or a GET's query fields. */
export async function requestParts(opts: BodySource, stdin: Readable): Promise<{ body: unknown; query: Array<[string, string]> }> {
  if (opts.input !== undefined) {
    const text = await readSource(opts.input, stdin, '--input');
    try {
      return { body: JSON.parse(text) as unknown, query: [] };
    } catch (err) {
      const where = opts.input === '-' ? 'stdin' : `"${opts.input}"`;
      throw new UsageError(`--input ${where} is not JSON: ${(err as Error).message}`);
    }
  }
  const values: Array<[string, unknown]> = [];
  for (const f of opts.fields) {
    // A file's final newline is the editor's, not the value's.
    values.push([f.key, 'file' in f ? (await readSource(f.file, stdin, `-f ${f.key}`)).replace(/\r?\n$/, '') : f.value]);
  }
  if (opts.method === 'GET') {
    return { body: undefined, query: values.map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]) };
  }
  // fromEntries defines own properties: a "__proto__" field stays a field.
  return { body: opts.fields.length > 0 ? Object.fromEntries(values) : undefined, query: [] };
}
