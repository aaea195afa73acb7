/**
 * V8's compiled code of svc kept between runs (docs/performance.md): in svc's cache directory
 * ($XDG_CACHE_HOME/svc/code-cache), made by the first run that loads undici, used by the next,
 * replaced when it is damaged, and never a failure when it cannot be written. svc keeps the cached
 * data of its start script (dist/chunks/start.cjs: commander and the command tree, what every run
 * compiles), of each verb's chunks (CommonJS files too) and of undici's file (dist/chunks/undici-core.cjs)
 * itself on every Node line, made at exit so it holds what the run compiled; Node 22 and later also keep
 * the few ES modules' (bin/svc turns their compile cache on there), which Node 20 has no cache for.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { cleanEnv, cleanupBuiltCli, ensureBuilt, spawnSvc, tempDir } from '../support/built-cli.js';

const NODE_CACHES = typeof (process.getBuiltinModule('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function';

let sb: RunningSandbox;

beforeAll(async () => {
  [sb] = await Promise.all([startSandbox({ port: 0 }), ensureBuilt()]);
}, 180_000);

afterAll(async () => {
  await sb?.stop();
  cleanupBuiltCli();
});

async function list(cache: string) {
  const r = await spawnSvc(['databases', 'list', '--json'], {
    env: cleanEnv({ XDG_CACHE_HOME: cache, SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.token('full') }),
  });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  expect(String(r.stderr)).not.toMatch(/error|warning|cache/i);
  expect(JSON.parse(String(r.stdout)).databases[0].id).toBe('db_orders');
}

/** The files under `dir`, relative, with their bytes. */
function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.set(join(entry.parentPath, entry.name).slice(dir.length + 1), readFileSync(join(entry.parentPath, entry.name)));
  }
  return out;
}

describe('the code cache (the built CLI)', () => {
  it('is made by the first run in $XDG_CACHE_HOME/svc/code-cache, and used as it is by the next', async () => {
    const cache = tempDir('xdg-cache');
    await list(cache);
    const dir = join(cache, 'svc', 'code-cache');
    const made = files(dir);
    expect(made.size).toBeGreaterThan(0);
    const ours = (name: string) => [...made.keys()].filter((f) => new RegExp(`^${name}\\.cjs-[0-9a-f]{8}-v\\d+\\.[\\d.]+-\\w+-\\d+-\\d+\\.bin$`).test(f));
    expect(ours('start')).toEqual([expect.stringContaining(`-${process.version}-`)]);
    expect(ours('undici-core')).toEqual([expect.stringContaining(`-${process.version}-`)]);
    // The verb's chunks are CommonJS files with a cache of their own too (tools/bundle.mjs), on every line.
    expect(ours('commands-databases-list')).toEqual([expect.stringContaining(`-${process.version}-`)]);
    if (!NODE_CACHES) expect([...made.keys()].filter((f) => !/^[\w-]+\.cjs-[0-9a-f]{8}-v\d+\.[\d.]+-\w+-\d+-\d+\.bin$/.test(f))).toEqual([]);
    const times = [...made.keys()].map((f) => statSync(join(dir, f)).mtimeMs);
    await list(cache);
    // Not written again: V8 took the cached code.
    expect([...made.keys()].map((f) => statSync(join(dir, f)).mtimeMs)).toEqual(times);
    expect(files(dir)).toEqual(made);
  });

  it('a damaged cache is no harm: the run does its work and the cache is made again', async () => {
    const cache = tempDir('xdg-cache');
    await list(cache);
    const dir = join(cache, 'svc', 'code-cache');
    const damaged = new Map([...files(dir)].map(([f, bytes]) => [f, randomBytes(bytes.length)]));
    for (const [f, bytes] of damaged) writeFileSync(join(dir, f), bytes);
    await list(cache);
    for (const name of ['start.cjs-', 'undici-core.cjs-']) {
      const [file, bytes] = [...damaged].find(([f]) => f.startsWith(name))!;
      expect(files(dir).get(file)).not.toEqual(bytes);
    }
    await list(cache);
  });

  it("`svc --help` alone makes the start script's cache, and the next run uses it", async () => {
    const cache = tempDir('xdg-cache');
    const help = async () => {
      const r = await spawnSvc(['--help'], { env: cleanEnv({ XDG_CACHE_HOME: cache }) });
      expect(r.exitCode).toBe(0);
      expect(String(r.stdout)).toContain('Usage: svc [options] [command]');
      expect(String(r.stderr)).toBe('');
    };
    await help();
    const dir = join(cache, 'svc', 'code-cache');
    const made = [...files(dir).keys()].filter((f) => f.startsWith('start.cjs-'));
    expect(made).toHaveLength(1);
    const time = statSync(join(dir, made[0]!)).mtimeMs;
    await help();
    expect(statSync(join(dir, made[0]!)).mtimeMs).toBe(time);
  });

  it('a cache directory that cannot be made is no cache, never an error', async () => {
    const blocked = join(tempDir('xdg-cache'), 'a-file');
    writeFileSync(blocked, '');
    await list(blocked);
  });
});
