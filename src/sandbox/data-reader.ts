import { readFileSync } from 'node:fs';
import path from 'node:path';
import type * as z from '../zod.js';
import type { JsonReviver } from './timestamps.js';

/** A data set that cannot be served: names the file and the problem. */
export class SandboxDataError extends Error {}

export function fail(file: string, message: string): never {
  throw new SandboxDataError(`${file}: ${message}`);
}

/** Indexes `items` by `key`; a repeated key is a data error in `file`. */
export function unique<T>(items: T[], key: (t: T) => string, what: string, file: string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    if (map.has(k)) fail(file, `duplicate ${what} id ${k}`);
    map.set(k, item);
  }
  return map;
}

export type ReadJson = <S extends z.ZodMiniType>(rel: string, schema: S) => z.infer<S>;

/** Reads JSON files of `dir` against a schema; a missing, malformed or invalid file is a SandboxDataError. */
export function jsonReader(dir: string, reviver?: JsonReviver): ReadJson {
  return (rel, schema) => {
    const file = path.join(dir, rel);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'), reviver as Parameters<typeof JSON.parse>[1]);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
      throw new SandboxDataError(`${file}: ${reason}`);
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
        .join('; ');
      throw new SandboxDataError(`${file}: ${issues}`);
    }
    return parsed.data;
  };
}
