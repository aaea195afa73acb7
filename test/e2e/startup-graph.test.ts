/**
 * What `svc --help` (and every command before its verb loads) costs at start-up is what the
 * bundle's entry imports statically. These libraries must stay behind a dynamic import(), loaded
 * only by the commands that use them: on Node 20, which has no compile cache, every byte of them
 * would be compiled on every run (the bench measures the time; this keeps the shape). And a run
 * whose token comes from SVC_API_KEY never loads a keychain binding.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { cleanEnv, cleanupBuiltCli, ensureBuilt, ROOT, spawnSvc, tempDir } from '../support/built-cli.js';
import { closedPort } from '../support/loopback-server.js';

const DIST = join(ROOT, 'dist');

/**
 * The start script (dist/chunks/start.cjs, which bin/svc runs; it loads every chunk through a
 * dynamic import) or another file of dist/, and every chunk it imports statically (a requireChunk
 * of a CommonJS chunk), transitively: their text.
 */
function staticClosure(start = 'chunks/start.cjs'): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const text = readFileSync(join(DIST, file), 'utf8');
    seen.set(file, text);
    const dir = file.includes('/') ? 'chunks/' : '';
    // A chunk's static import of another is a requireChunk of it (an import() is an importChunk: tools/bundle.mjs).
    for (const m of text.matchAll(/(?:(?:import|from)\s*"\.\/|\.requireChunk\(__dirname,\s*")((?:chunks\/)?[\w-]+\.[mc]js)"/g))
      visit(`${dir}${m[1]!}`.replace('chunks/chunks/', 'chunks/'));
  };
  visit(start);
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
    ["pg (the drill's SQL checks)", /node_modules\/pg(-protocol|-cursor)?\//],
    ['the MCP SDK', /\bMcpServer\b|\bStdioServerTransport\b|jsonrpc/],
  ])('leaves %s to the commands that use it', (_name, marker) => {
    const holding = [...closure].filter(([, text]) => marker.test(text)).map(([file]) => file);
    expect(holding).toEqual([]);
  });
});

describe('what an API command loads (the built bundle)', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it("carries nothing of the MCP SDK, its validator or zod's JSON Schema code: svc mcp serve loads them from a file of their own", () => {
    const verb = readdirSync(join(DIST, 'chunks')).find((f) => readFileSync(join(DIST, 'chunks', f), 'utf8').includes('No protected databases'));
    expect(verb).toBeDefined();
    const closure = staticClosure(`chunks/${verb}`);
    const holding = [...closure].filter(([, text]) => /\bMcpServer\b|\btoJSONSchema\b|\bajv\b/i.test(text)).map(([file]) => file);
    expect(holding).toEqual([]);
    expect(readFileSync(join(DIST, 'chunks', 'mcp-sdk.mjs'), 'utf8')).toMatch(/\btoJSONSchema\b/);
  });

  it("reads each chunk's exports where they are: no file copies another's exports or its own as it loads, or makes its URL before it is read", () => {
    const files = readdirSync(join(DIST, 'chunks')).filter((f) => f.endsWith('.cjs'));
    const copying: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(DIST, 'chunks', file), 'utf8');
      // esbuild's interop: __toESM makes an object with a getter for every export of the chunk imported, __toCommonJS a second copy of the file's own.
      const wrappers = [...text.matchAll(/var (require_[\w$]+)=__commonJS\(\{"svc-chunk:/g)].map((m) => m[1]!);
      if (wrappers.some((w) => text.includes(`__toESM(${w}())`))) copying.push(`${file}: __toESM of a chunk`);
      if (/module\.exports=__toCommonJS\(/.test(text)) copying.push(`${file}: __toCommonJS`);
      if (/^const \w+ = require\('node:url'\)\.pathToFileURL\(__filename\)/m.test(text)) copying.push(`${file}: its URL made as it loads`);
    }
    expect(files.length).toBeGreaterThan(20);
    expect(copying).toEqual([]);
    // The verb's chunk imports others, and reads their exports through the chunks' own objects.
    const verb = files.find((f) => readFileSync(join(DIST, 'chunks', f), 'utf8').includes('No protected databases'))!;
    expect(readFileSync(join(DIST, 'chunks', verb), 'utf8')).toMatch(/=require_chunk_[\w$]+\(\)/);
  });
});

describe('what an API command loads of undici (the built bundle)', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('undici is a CommonJS file of its own (its code cached between runs), without llhttp as base64 text: the parser is read from a .wasm file', () => {
    const chunks = readdirSync(join(DIST, 'chunks'));
    expect(
      chunks.filter((f) => /\.[mc]js$/.test(f) && f !== 'undici-core.cjs' && /node_modules\/undici\//.test(readFileSync(join(DIST, 'chunks', f), 'utf8'))),
    ).toEqual([]);
    const undici = readFileSync(join(DIST, 'chunks', 'undici-core.cjs'), 'utf8');
    expect(undici).toContain('EnvHttpProxyAgent');
    // "AGFzbQ" is "\0asm", the first bytes of a WebAssembly module, in base64.
    expect(undici).not.toMatch(/AGFzbQ|wasmBase64/);
    expect(chunks).toEqual(expect.arrayContaining(['llhttp.wasm', 'llhttp_simd.wasm']));
    // Nothing of stream(), pipeline() or upgrade(): svc sends requests and, through a proxy, connect().
    expect(undici).not.toMatch(/node_modules\/undici\/lib\/api\/api-(stream|pipeline|upgrade)\.js/);
  });

  it("undici's files get a stand-in for node:assert, and call nothing of it but assert(value[, message])", () => {
    const undici = readFileSync(join(DIST, 'chunks', 'undici-core.cjs'), 'utf8');
    // Only the stand-in (src/api/undici-assert.cjs) requires node:assert, on a failed assertion.
    expect(undici.match(/require\("node:assert"\)/g)).toHaveLength(1);
    expect(undici).toMatch(
      /"src\/api\/undici-assert\.cjs"\(exports2?, ?module2?\)\{"use strict";module2?\.exports=function(\s\w+)?\(\.\.\.args\)\{args\[0\]\|\|require\("node:assert"\)\(\.\.\.args\)\}/,
    );
    const bundled = [...undici.matchAll(/"[^"]*node_modules\/undici\/(lib\/[\w/.-]+\.js)"/g)].map((m) => m[1]!);
    const asserting = bundled.filter((file) => /require\('node:assert'\)/.test(readFileSync(join(ROOT, 'node_modules', 'undici', file), 'utf8')));
    expect(asserting.length).toBeGreaterThan(5);
    for (const file of asserting) {
      const source = readFileSync(join(ROOT, 'node_modules', 'undici', file), 'utf8');
      expect(source, file).toMatch(/^const assert = require\('node:assert'\)$/m);
      expect(source.replace(/^const assert = require\('node:assert'\)$/m, '').match(/\bassert\b(?!\()/g), file).toBeNull();
    }
  });
});

describe('the token from SVC_API_KEY (the built CLI)', () => {
  let sb: RunningSandbox;

  beforeAll(async () => {
    [sb] = await Promise.all([startSandbox({ port: 0 }), ensureBuilt()]);
  }, 180_000);

  afterAll(async () => {
    await sb?.stop();
    cleanupBuiltCli();
  });

  /** The exit code of a run of svc and the CommonJS modules (native bindings among them) it loaded. */
  async function loaded(args: string[], env: Record<string, string>): Promise<{ code: number | undefined; modules: string[] }> {
    const file = join(tempDir('loaded'), 'modules.txt');
    const preload = join(ROOT, 'test', 'support', 'loaded-modules.cjs');
    const r = await spawnSvc(args, { env: cleanEnv({ ...env, NODE_OPTIONS: `--require ${preload}`, SVC_TEST_LOADED_FILE: file }) });
    return { code: r.exitCode, modules: readFileSync(file, 'utf8').split('\n').filter(Boolean) };
  }

  const keychainBindings = (modules: string[]) => modules.filter((m) => /[\\/]node_modules[\\/](@napi-rs[\\/]keyring|keytar)[\\/]/.test(m));

  /**
   * Whether a keychain binding loads here at all: npm ci --omit=optional leaves keytar out, and
   * @napi-rs/keyring's JavaScript in but not its native package, so it resolves and fails to load.
   */
  const bindingInstalled = ['@napi-rs/keyring', 'keytar'].some((name) => {
    try {
      createRequire(join(ROOT, 'package.json'))(name);
      return true;
    } catch {
      return false;
    }
  });

  it("a request loads neither Node's HTTP client and server (node:http) nor HTTP/2: undici speaks HTTP/1.1 over node:net", async () => {
    const file = join(tempDir('loaded'), 'builtins.txt');
    const preload = join(ROOT, 'test', 'support', 'loaded-builtins.cjs');
    const r = await spawnSvc(['databases', 'list', '--json'], {
      env: cleanEnv({ SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.token('full'), NODE_OPTIONS: `--require ${preload}`, SVC_TEST_LOADED_FILE: file }),
    });
    expect(r.exitCode).toBe(0);
    const builtins = readFileSync(file, 'utf8').split('\n');
    expect(builtins).toContain('net');
    expect(builtins.filter((m) => /^(_?http|http2|internal\/http2)/.test(m))).toEqual([]);
  });

  it("a request loads none of node:assert (undici's invariants), node:fs/promises with readline (the config files), perf_hooks (the request's clock) or node:os (the home directory, from HOME)", async () => {
    const file = join(tempDir('loaded'), 'builtins.txt');
    const preload = join(ROOT, 'test', 'support', 'loaded-builtins.cjs');
    const home = tempDir('home');
    // A config file and a credentials file to read, as a logged-in user has them.
    mkdirSync(join(home, '.config', 'svc'), { recursive: true });
    writeFileSync(join(home, '.config', 'svc', 'config.json'), '{}\n');
    writeFileSync(join(home, '.config', 'svc', 'credentials.json'), '{}\n', { mode: 0o600 });
    const r = await spawnSvc(['databases', 'list', '--json'], {
      env: cleanEnv({
        HOME: home,
        SVC_BASE_URL: sb.baseUrl,
        SVC_API_KEY: sb.token('full'),
        NODE_OPTIONS: `--require ${preload}`,
        SVC_TEST_LOADED_FILE: file,
      }),
    });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).databases.length).toBeGreaterThan(0);
    const builtins = readFileSync(file, 'utf8').split('\n');
    expect(builtins.filter((m) => /^(assert|fs\/promises|readline|perf_hooks|os)$|^internal\/(assert|readline)\/|^internal\/fs\/promises$/.test(m))).toEqual(
      [],
    );
  });

  /** The module wrappers of undici-core.cjs (esbuild names each by its path) that ran, by V8's coverage of a run. */
  async function undiciModulesRun(env: Record<string, string>): Promise<{ code: number | undefined; ran: string[] }> {
    const dir = tempDir('coverage');
    const r = await spawnSvc(['databases', 'list', '--json'], {
      env: cleanEnv({ SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.token('full'), NODE_V8_COVERAGE: dir, ...env }),
    });
    const ran = readdirSync(dir)
      .flatMap(
        (f) =>
          (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[] })
            .result,
      )
      .filter((script) => script.url.endsWith('/undici-core.cjs'))
      .flatMap((script) => script.functions)
      .filter((fn) => /node_modules\/undici\/lib\/.*\.js$/.test(fn.functionName) && fn.ranges[0]!.count > 0)
      .map((fn) => fn.functionName.replace(/^.*node_modules\/undici\/lib\//, ''));
    return { code: r.exitCode, ran };
  }

  it("a request without a proxy runs none of undici's ProxyAgent or SOCKS5 code; a proxy that is set loads them", async () => {
    const direct = await undiciModulesRun({});
    expect(direct.code).toBe(0);
    expect(direct.ran).toEqual(expect.arrayContaining(['dispatcher/agent.js', 'dispatcher/env-http-proxy-agent.js', 'dispatcher/client-h1.js']));
    expect(direct.ran.filter((m) => /proxy-agent\.js$|socks5/.test(m) && m !== 'dispatcher/env-http-proxy-agent.js')).toEqual([]);
    // A proxy nobody listens on: the request fails (exit 9), but the ProxyAgent was made for it.
    const proxied = await undiciModulesRun({ HTTP_PROXY: `http://127.0.0.1:${await closedPort()}` });
    expect(proxied.code).toBe(9);
    expect(proxied.ran).toEqual(expect.arrayContaining(['dispatcher/proxy-agent.js', 'dispatcher/socks5-proxy-agent.js']));
  });

  /**
   * The schemas built with lazySchema (src/zod.ts) in the files a run loaded, and those it built, by V8's coverage
   * of the run: each is `var name=(0,import_x.lazySchema)(()=>...)` in a chunk, and built when that arrow runs.
   */
  async function lazySchemasBuilt(args: string[]): Promise<{ code: number | undefined; loaded: string[]; built: string[] }> {
    const dir = tempDir('coverage');
    const r = await spawnSvc(args, { env: cleanEnv({ SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.token('full'), NODE_V8_COVERAGE: dir }) });
    type Fn = { functionName: string; ranges: { startOffset: number; count: number }[] };
    const scripts = readdirSync(dir)
      .flatMap((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { result: { url: string; functions: Fn[] }[] }).result)
      .filter((s) => s.url.includes('/dist/chunks/') && s.url.endsWith('.cjs'));
    const texts = new Map(scripts.map((s) => [s.url, readFileSync(new URL(s.url), 'utf8')]));
    // Each file runs inside a function wrapper (src/code-cache.ts): the offset of its text in the script, from lazySchema's own declaration.
    // (Another function of that name is its export's getter, earlier in the text.)
    const zod = scripts.find((s) => /\bfunction lazySchema\d*\(/.test(texts.get(s.url)!))!;
    const declAt = texts.get(zod.url)!.search(/\bfunction lazySchema\d*\(/);
    const decl = zod.functions.find((f) => /^lazySchema\d*$/.test(f.functionName) && f.ranges[0]!.startOffset >= declAt)!;
    const shift = decl.ranges[0]!.startOffset - declAt;
    const loaded: string[] = [];
    const built: string[] = [];
    for (const s of scripts)
      for (const m of texts.get(s.url)!.matchAll(/\b([\w$]+)=\(0,[\w$]+\.lazySchema\d*\)\(\(\)=>/g)) {
        loaded.push(m[1]!);
        const at = m.index + m[0].length - '()=>'.length + shift;
        if (s.functions.some((f) => f.ranges[0]!.startOffset === at && f.ranges[0]!.count > 0)) built.push(m[1]!);
      }
    return { code: r.exitCode, loaded: loaded.sort(), built: built.sort() };
  }

  it("a request builds no schema it does not check a value with: not the error body's on a success, not an option's left out", async () => {
    const plain = await lazySchemasBuilt(['databases', 'list', '--json']);
    expect(plain.code).toBe(0);
    // Loaded with the settings, the page options and the error handling...
    expect(plain.loaded).toEqual(expect.arrayContaining(['errorBody', 'positiveIntString', 'retries', 'timeoutSeconds']));
    // ...and none built.
    expect(plain.built).toEqual([]);
    const options = await lazySchemasBuilt(['databases', 'list', '--json', '--limit', '5', '--timeout', '10', '--max-retries', '2']);
    expect(options.code).toBe(0);
    expect(options.built).toEqual(['positiveIntString', 'retries', 'timeoutSeconds']);
    const missing = await lazySchemasBuilt(['databases', 'get', 'db_missing', '--json']);
    expect(missing.code).toBe(5);
    expect(missing.built).toEqual(['errorBody']);
  });

  it('loads the database-name fallback (a name where an id was expected) only for a verb given a database id: list loads none of it', async () => {
    const holding = readdirSync(join(DIST, 'chunks')).filter((f) => readFileSync(join(DIST, 'chunks', f), 'utf8').includes('databases are named so'));
    expect(holding).toHaveLength(1);
    const isIt = (m: string) => m.endsWith(`/dist/chunks/${holding[0]!}`);
    const env = { SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.token('full') };
    const list = await loaded(['databases', 'list', '--json'], env);
    expect(list.code).toBe(0);
    expect(list.modules.filter(isIt)).toEqual([]);
    const get = await loaded(['databases', 'get', 'db_orders', '--json'], env);
    expect(get.code).toBe(0);
    expect(get.modules.filter(isIt)).toHaveLength(1);
  });

  it('a request never loads a keychain binding', async () => {
    const r = await loaded(['databases', 'list', '--json'], { SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.token('full') });
    expect(r.code).toBe(0);
    expect(keychainBindings(r.modules)).toEqual([]);
  });

  it('without it, the keychain is asked for the stored token (the binding loads where one is installed)', async () => {
    const r = await loaded(['databases', 'list', '--json'], { SVC_BASE_URL: sb.baseUrl });
    expect(r.code).toBe(3);
    expect(keychainBindings(r.modules).length > 0).toBe(bindingInstalled);
  });
});
