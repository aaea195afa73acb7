/**
 * Three faces over one core (docs/decisions.md): src/commands (the CLI), src/mcp (the MCP server) and
 * src/drill (the drill, a workflow over the core and the restore engine). The core (src/core, and
 * src/api beneath everything) imports no face, and no face imports another, except where the CLI
 * runs one: `svc mcp serve` loads the MCP server, `svc restore drill` and its merge run the drill.
 * Read from the source's own import graph: static, type-only, re-exports and dynamic import().
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const FACES = ['commands', 'mcp', 'drill'];

/** The CLI verbs that run another face, and the only modules of it they reach. */
const RUNS: Record<string, RegExp> = {
  'commands/mcp/serve.ts': /^mcp\/server\.ts$/,
  'commands/restore/drill.ts': /^drill\//,
  // The drill verb's options and its report and metrics, split from drill.ts by what they hold.
  'commands/restore/drill-options.ts': /^drill\//,
  'commands/restore/drill-publish.ts': /^drill\//,
  'commands/restore/drill-merge.ts': /^drill\//,
  'commands/restore/drill-table.ts': /^drill\//,
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every edge of the graph: importer and imported, relative to src/, with .js specifiers read as .ts. */
const edges = sources(SRC).flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return specifiers.map((s) => ({
    from: relative(SRC, file),
    to: relative(SRC, resolve(dirname(file), s)).replace(/\.js$/, '.ts'),
  }));
});
const top = (path: string) => path.split('/')[0]!;

describe('the import graph of src/', () => {
  it('is read: every face and the core import something', () => {
    for (const dir of [...FACES, 'core', 'api'])
      expect(
        edges.some((e) => top(e.from) === dir),
        dir,
      ).toBe(true);
    expect(edges.some((e) => e.from === 'commands/mcp/serve.ts' && e.to === 'mcp/server.ts')).toBe(true);
  });

  it.each(['core', 'api'])('src/%s imports no face', (core) => {
    expect(edges.filter((e) => top(e.from) === core && FACES.includes(top(e.to)))).toEqual([]);
  });

  it.each(FACES)('src/%s imports no other face, but where the CLI runs one', (face) => {
    const crossing = edges.filter((e) => top(e.from) === face && FACES.includes(top(e.to)) && top(e.to) !== face);
    expect(crossing.filter((e) => !RUNS[e.from]?.test(e.to))).toEqual([]);
  });
});
