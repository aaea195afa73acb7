import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** A JSON body from fixtures/api: the single source of test data. */
export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../fixtures/api/${name}.json`, import.meta.url), 'utf8')) as T;
}
