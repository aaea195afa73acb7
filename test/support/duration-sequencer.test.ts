import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestSpecification, Vitest } from 'vitest/node';
import { expect, it } from 'vitest';
import config from '../../vitest.config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const testFiles = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file}`);
const measured = JSON.parse(readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8')) as Record<string, number>;

/** The order `npm test` starts the files in; `cached` are the durations (ms) in vitest's results cache, by `project:file`. */
async function startOrder(files: { file: string; project: string; isolate?: boolean }[], cached: Record<string, number> = {}): Promise<string[]> {
  const projects = new Map<string, object>();
  const specs = files.map(({ file, project, isolate = true }) => {
    if (!projects.has(project)) projects.set(project, { name: project, config: { isolate, sequence: { groupOrder: 0 } } });
    return { project: projects.get(project), moduleId: join(root, file) };
  });
  const cache = {
    getFileTestResults: (key: string) => (key in cached ? { failed: false, duration: cached[key] } : undefined),
    getFileStats: (key: string) => ({ size: statSync(join(root, key.slice(key.indexOf(':') + 1))).size }),
  };
  const Sequencer = config.test!.sequence!.sequencer!;
  const sorted = await new Sequencer({ config: { root }, cache } as unknown as Vitest).sort(specs as unknown as TestSpecification[]);
  return sorted.map((spec) => spec.moduleId.slice(root.length));
}

it('on a clean clone, starts the measured files first, the slowest first, and then the others as vitest does', async () => {
  const order = await startOrder(testFiles.map((file) => ({ file, project: 'isolated' })));
  const slow = Object.keys(measured).filter((file) => testFiles.includes(file));
  expect([...order.slice(0, slow.length)].sort()).toEqual([...slow].sort());
  const seconds = order.slice(0, slow.length).map((file) => measured[file]!);
  expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
  // The table's three slowest files, whichever they are after a refresh (tools/test-durations.mjs).
  const slowest = slow.sort((a, b) => measured[b]! - measured[a]!).slice(0, 3);
  expect(order.slice(0, 3)).toEqual(slowest);
  // The small but slow signal files: by size alone they were started last and ran alone at the end of the run.
  for (const signal of ['sighup', 'sigint', 'sigterm']) {
    expect(order.indexOf(`test/drill/drill-signals-phases-${signal}.test.ts`)).toBeLessThan(20);
  }
  const rest = order.slice(slow.length).map((file) => statSync(join(root, file)).size);
  expect(rest).toEqual([...rest].sort((a, b) => b - a));
});

it("takes a file's duration from vitest's results cache when there is one", async () => {
  const files = ['test/api/hostile-paging.test.ts', 'test/pg/quote.test.ts', 'test/drill/drill-isolation.test.ts'];
  const order = await startOrder(
    files.map((file) => ({ file, project: 'isolated' })),
    { 'isolated:test/pg/quote.test.ts': 500_000 },
  );
  expect(order).toEqual(['test/pg/quote.test.ts', 'test/api/hostile-paging.test.ts', 'test/drill/drill-isolation.test.ts']);
});

it("keeps the shared project's files together, after the isolated ones, so that its workers take one file after another", async () => {
  const order = await startOrder([
    { file: 'test/pg/quote.test.ts', project: 'shared', isolate: false },
    { file: 'test/drill/drill-isolation.test.ts', project: 'isolated' },
    { file: 'test/restore/download-ranged.test.ts', project: 'shared', isolate: false },
    { file: 'test/docs.test.ts', project: 'isolated' },
  ]);
  expect(order).toEqual(['test/drill/drill-isolation.test.ts', 'test/docs.test.ts', 'test/restore/download-ranged.test.ts', 'test/pg/quote.test.ts']);
});
