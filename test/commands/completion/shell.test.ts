/**
 * The built CLI's `svc complete --`, the entry point the completion scripts call back on each Tab
 * (real-shells.test.ts presses Tab in the shells themselves), and what a Tab loads: never the HTTP
 * client, the session or the keychain.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, cleanupBuiltCli, ensureBuilt, ROOT, spawnSvc, tempDir } from '../../support/built-cli.js';
import { closedPort, LoopbackServer } from '../../support/loopback-server.js';

const TOKEN = 'svc_test_completion_0123456789abcdef';
const server = new LoopbackServer();

beforeAll(async () => {
  await ensureBuilt();
  await server.start();
}, 240_000);

afterAll(async () => {
  await server.stop();
  cleanupBuiltCli();
});

describe('svc complete -- (the entry point the scripts call)', () => {
  it('prints the candidates and the directive line', async () => {
    const r = await spawnSvc(['complete', '--', 'databases', ''], { env: cleanEnv() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      'list\tList protected databases (listDatabases)\nget\tShow one protected database (getDatabase)\nhelp\tdisplay help for command\n:4\n',
    );
  });

  it('works with no base URL, token or config at all', async () => {
    const r = await spawnSvc(['complete', '--', 'da'], { env: cleanEnv() });
    expect(r.stdout).toBe('databases\tProtected databases (created in the dashboard only)\n:4\n');
  });
});

/** Writes, at exit, every CommonJS module the run required (require.cache). */
const LOADED_MODULES = join(ROOT, 'test', 'support', 'loaded-modules.cjs');

describe('what a run loads', () => {
  let hooks: string;
  beforeAll(() => {
    const dir = tempDir('hooks');
    // Records every module the process loads (module.register: Node 20.6+), in a file named by the environment.
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.SVC_TEST_MODULE_LOG, url + '\\n');
  return next(url, context);
}
`,
    );
    hooks = join(dir, 'register.mjs');
    writeFileSync(hooks, `import { register } from 'node:module';\nregister(${JSON.stringify(new URL(`file://${join(dir, 'hooks.mjs')}`).href)});\n`);
  });

  /** What the run imported (the loader hooks) and what it required (the start script loads the verbs' chunks with require()). */
  async function loaded(args: string[], env: Record<string, string>): Promise<{ modules: string[]; code: number | undefined }> {
    const dir = tempDir('modules');
    const [log, required] = [join(dir, 'loaded.txt'), join(dir, 'required.txt')];
    writeFileSync(log, '');
    const r = await execa(process.execPath, ['--import', hooks, '--require', LOADED_MODULES, BIN, ...args], {
      env: cleanEnv({ ...env, SVC_TEST_MODULE_LOG: log, SVC_TEST_LOADED_FILE: required }),
      extendEnv: false,
      reject: false,
    });
    const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);
    return { modules: [...lines(log), ...lines(required)], code: r.exitCode };
  }

  /** The chunks and packages of the HTTP client, the session and the keychain (tools/bundle.mjs names chunks after their source file). */
  const FORBIDDEN = /\/chunks\/(?:session|undici|keychain|token-store)(?:-[\w-]+)?\.[mc]js$|\/@napi-rs\/keyring\/|\/keytar\//;

  it('completing loads neither the session, the HTTP client nor the keychain, and sends nothing', async () => {
    const env = { SVC_BASE_URL: server.baseUrl, SVC_API_KEY: TOKEN };
    const { modules, code } = await loaded(['complete', '--', 'databases', ''], env);
    expect(code).toBe(0);
    expect(modules.some((m) => /\/chunks\/(?:commands-completion-)?complete(?:-[\w-]+)?\.[mc]js$/.test(m))).toBe(true);
    expect(modules.filter((m) => FORBIDDEN.test(m))).toEqual([]);
    const script = await loaded(['completion', 'zsh'], env);
    expect(script.modules.filter((m) => FORBIDDEN.test(m))).toEqual([]);
    expect(server.exchanges).toEqual([]);
  });

  it('(the check sees them when a command does load them)', async () => {
    const { modules } = await loaded(['profile', '--max-retries', '0'], { SVC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, SVC_API_KEY: TOKEN });
    const names = modules.filter((m) => FORBIDDEN.test(m)).map((m) => m.replace(/^.*\/chunks\/([a-z]+)[-.].*$/, '$1'));
    expect([...new Set(names)].sort()).toEqual(['session', 'undici']);
  });

  it('jq (output/jq.ts, which requires jq-web) loads only with --jq', async () => {
    const env = { SVC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, SVC_API_KEY: TOKEN };
    const jqChunk = (modules: string[]) => modules.some((m) => /\/chunks\/jq-[\w-]+\.[mc]js$/.test(m));
    expect(jqChunk((await loaded(['profile', '--json', '--max-retries', '0'], env)).modules)).toBe(false);
    expect(jqChunk((await loaded(['profile', '--jq', '.profile', '--max-retries', '0'], env)).modules)).toBe(true);
  });
});
