/**
 * What `svc --help` (and every command before its verb loads) costs at start-up is what the
 * bundle's entry imports statically. These libraries must stay behind a dynamic import(), loaded
 * only by the commands that use them: on Node 20, which has no compile cache, every byte of them
 * would be compiled on every run (the bench measures the time; this keeps the shape).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../support/built-cli.js';

const DIST = join(ROOT, 'dist');

/** dist/svc.mjs and every chunk it imports statically, transitively: their text. */
function staticClosure(): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const text = readFileSync(join(DIST, file), 'utf8');
    seen.set(file, text);
    const dir = file.includes('/') ? 'chunks/' : '';
    for (const m of text.matchAll(/(?:import|from)\s*"\.\/((?:chunks\/)?[\w-]+\.mjs)"/g)) visit(`${dir}${m[1]!}`.replace('chunks/chunks/', 'chunks/'));
  };
  visit('svc.mjs');
  return seen;
}

describe('what every start-up loads (the built bundle)', () => {
  let closure: Map<string, string>;

  beforeAll(async () => {
    await ensureBuilt();
    closure = staticClosure();
  }, 180_000);

  it('holds commander and the command tree', () => {
    const text = [...closure.values()].join('\n');
    expect(text).toContain('node_modules/commander/');
    expect(text).toContain('registerDatabases');
  });

  it.each([
    ['undici', /node_modules\/undici\//],
    ['zod', /\$ZodType\b/],
    ['cli-table3', /node_modules\/cli-table3\//],
    ['execa', /\bexeca\b.*\bExecaError\b|node_modules\/cross-spawn\//],
    ['ora', /\bcli-spinners\b|\bora\b.*\bspinner\b/],
  ])('leaves %s to the commands that use it', (_name, marker) => {
    const holding = [...closure].filter(([, text]) => marker.test(text)).map(([file]) => file);
    expect(holding).toEqual([]);
  });
});
