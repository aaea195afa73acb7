/**
 * `npm run build`: dist/ holds the bundle bin/svc runs and nothing else: dist/chunks/start.cjs (see
 * START_FILE below) plus lazily loaded chunks in dist/chunks/ (each command's work, the sandbox, the restore engine, undici, ora
 * and @clack/prompts load on first use through dynamic import() in the sources). Tests, scripts and
 * the bench run the TypeScript sources (vitest, tsx). The one edit of emitted text is esbuild's interop
 * between the bundle's own files (tools/chunk-interop.mjs).
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { directChunkInterop } from './chunk-interop.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));

// Built beside dist/ and swapped in at the end: an svc started during a build (a test file, a
// second terminal) finds the old bundle or the new one, never a half-written or missing one.
const staging = `dist.build-${process.pid}`;
rmSync(`${root}/${staging}`, { recursive: true, force: true });

/**
 * commander requires node:child_process at load time (which pulls in node:net), only to spawn
 * executable subcommands, which svc does not have: about 5 ms of every start-up. Its require gets a
 * stand-in that loads the real module on first use. A resolution plugin, not an edit of the output.
 */
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'commander-child-process', namespace: 'svc-lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'svc-lazy' }, () => ({
      contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      loader: 'js',
    }));
  },
};

/**
 * undici's client-h2.js requires node:http2 when undici loads (which loads tls and crypto too) to
 * read a few constants; svc never speaks HTTP/2. It gets src/api/undici-http2.ts instead, which
 * holds those constants and loads node:http2 on first use.
 */
const http2OnFirstUseForUndici = {
  name: 'http2-on-first-use-for-undici',
  setup(b) {
    b.onResolve({ filter: /^node:http2$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer) ? { path: `${root}/src/api/undici-http2.ts` } : undefined,
    );
  },
};

/**
 * undici's core/util.js and dispatcher/client.js require node:http as undici loads, which loads
 * Node's HTTP client and server, for a limit and a class name: they get src/api/undici-http.ts.
 */
const httpStandInForUndici = {
  name: 'http-stand-in-for-undici',
  setup(b) {
    b.onResolve({ filter: /^node:http$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/](core[\\/]util|dispatcher[\\/]client)\.js$/.test(args.importer)
        ? { path: `${root}/src/api/undici-http.ts` }
        : undefined,
    );
  },
};

/**
 * The MCP SDK (src/mcp/sdk.ts, loaded only by `svc mcp serve`) is a file of its own, built without
 * splitting: bundled with the rest, the zod modules it shares with svc's schemas would carry all
 * that the SDK uses of zod into the zod chunk every API command loads (80 KiB more). The dynamic
 * import of ./sdk.js stays an import of that file, which sits beside the chunk that imports it.
 */
const MCP_SDK_FILE = 'chunks/mcp-sdk.mjs';
const mcpSdkApart = {
  name: 'mcp-sdk-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/sdk\.js$/ }, (args) => (args.importer === `${root}src/mcp/server.ts` ? { path: './mcp-sdk.mjs', external: true } : undefined));
  },
};

/**
 * undici (src/api/undici-core.ts: the modules svc uses, about 250 KB) is a CommonJS file of its own,
 * dist/chunks/undici-core.cjs, built without splitting, that src/code-cache.ts loads with V8's
 * compiled code kept between runs: Node 20 has no compile cache for ES modules, and every run that
 * sent a request compiled all of undici again. The dynamic import of ./undici-core.js in
 * src/api/undici.ts becomes a chunk that loads that file. The flags of wasm-baseline.ts are set
 * before the file compiles: V8 ties cached code to the flags it was made under.
 */
const UNDICI_FILE = 'chunks/undici-core.cjs';
const undiciApart = {
  name: 'undici-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/undici-core\.js$/ }, (args) =>
      args.importer === `${root}src/api/undici.ts` ? { path: 'undici-core', namespace: 'svc-undici' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'svc-undici' }, () => ({
      contents: [
        `import { requireWithCodeCache } from ${JSON.stringify(`${root}src/code-cache.ts`)};`,
        `import { baselineWasmOnNode20 } from ${JSON.stringify(`${root}src/wasm-baseline.ts`)};`,
        `import { fileURLToPath } from 'node:url';`,
        'baselineWasmOnNode20();',
        `export const { EnvHttpProxyAgent } = requireWithCodeCache(fileURLToPath(new URL('./undici-core.cjs', import.meta.url)));`,
      ].join('\n'),
      resolveDir: root,
      loader: 'js',
    }));
  },
};

/**
 * undici's files require node:assert as undici loads, only to call assert(value): they get
 * src/api/undici-assert.cjs, which loads node:assert when a value is falsy.
 */
const assertOnFailureForUndici = {
  name: 'assert-on-failure-for-undici',
  setup(b) {
    b.onResolve({ filter: /^node:assert$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer) ? { path: `${root}/src/api/undici-assert.cjs` } : undefined,
    );
  },
};

/**
 * undici's env-http-proxy-agent.js requires its ProxyAgent (and that the SOCKS5 agent and client)
 * as it loads; it constructs one only for a proxy that is set. It gets src/api/undici-proxy-agent.cjs,
 * which loads the real one on the first construction: a run without a proxy does not run that code.
 */
const proxyAgentOnFirstUse = {
  name: 'proxy-agent-on-first-use',
  setup(b) {
    b.onResolve({ filter: /^\.\/proxy-agent$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]env-http-proxy-agent\.js$/.test(args.importer)
        ? { path: `${root}/src/api/undici-proxy-agent.cjs` }
        : undefined,
    );
  },
};

const options = {
  absWorkingDir: root,
  // --jq's worker thread (src/output/jq-worker.mjs) and the ranged download's hashing thread
  // (src/restore/download/prefix-hash-worker.mjs) are started from a file: entries of their own, beside the
  // chunks, where the chunk that starts each finds it as the sources do (./jq-worker.mjs).
  entryPoints: {
    'chunks/jq-worker': 'src/output/jq-worker.mjs',
    'chunks/prefix-hash-worker': 'src/restore/download/prefix-hash-worker.mjs',
  },
  outdir: staging,
  // Chunks sit two levels below the package root, like src/<dir>/*.ts: import.meta.url-relative
  // paths such as the sandbox's ../../fixtures/ resolve the same from sources and bundle.
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native keychain bindings and jq's WebAssembly build are resolved at run time from node_modules,
  // where they are installed at all: they load files next to themselves. pg-cloudflare is an optional
  // dependency of pg that pg requires only when it runs on Cloudflare Workers, never on Node: left out,
  // the build does not depend on optional packages being installed (npm ci --omit=optional).
  external: ['keytar', '@napi-rs/keyring', 'jq-web', 'pg-cloudflare'],
  plugins: [lazyChildProcessForCommander, http2OnFirstUseForUndici, mcpSdkApart, undiciApart],
  // The shell completion scripts (src/commands/completion/shells/) are imported as their text.
  loader: { '.bash': 'text', '.zsh': 'text', '.fish': 'text', '.ps1': 'text' },
  define: { __SVC_VERSION__: JSON.stringify(version) },
  // CommonJS dependencies (commander, cli-table3, undici) call require() for node built-ins. Made
  // on first call: createRequire costs 0.1 ms, and every chunk gets this banner, most never call it.
  banner: {
    js: "let __svcRequire; function require(id) { return (__svcRequire ??= process.getBuiltinModule('node:module').createRequire(import.meta.url))(id); }",
  },
  // Whitespace and syntax only: identifiers keep their names, so error names and stacks stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: process.env.SVC_BUNDLE_META === '1',
};
const sdkOptions = {
  ...options,
  entryPoints: ['src/mcp/sdk.ts'],
  outdir: undefined,
  outfile: `${staging}/${MCP_SDK_FILE}`,
  splitting: false,
  chunkNames: undefined,
  plugins: [],
  metafile: false,
};
/**
 * llhttp, undici's HTTP parser, is WebAssembly that undici ships as base64 in JavaScript (two builds,
 * 70 KB each): in undici-core.cjs they would be read, compiled and cached on every run. They are
 * files of their own beside it instead, read as bytes on the first connection (only the one used).
 */
const LLHTTP = { 'llhttp-wasm.js': 'llhttp.wasm', 'llhttp_simd-wasm.js': 'llhttp_simd.wasm' };
const llhttpAsFiles = {
  name: 'llhttp-as-files',
  setup(b) {
    b.onResolve({ filter: /[\\/]llhttp[\\/]llhttp(_simd)?-wasm\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer) ? { path: LLHTTP[args.path.split('/').pop()], namespace: 'svc-llhttp' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'svc-llhttp' }, (args) => ({
      contents: `module.exports = require('node:fs').readFileSync(require('node:path').join(__dirname, ${JSON.stringify(args.path)}));`,
      loader: 'js',
    }));
  },
};
function writeLlhttpFiles() {
  const requireUndici = createRequire(`${root}node_modules/undici/lib/llhttp/`);
  mkdirSync(`${root}/${staging}/chunks`, { recursive: true });
  for (const [module, file] of Object.entries(LLHTTP)) writeFileSync(`${root}/${staging}/chunks/${file}`, requireUndici(`./${module}`));
}

const undiciOptions = {
  ...sdkOptions,
  entryPoints: ['src/api/undici-core.ts'],
  outfile: `${staging}/${UNDICI_FILE}`,
  format: 'cjs',
  // A CommonJS file gets require() from its wrapper; import.meta is not used there.
  banner: undefined,
  plugins: [http2OnFirstUseForUndici, httpStandInForUndici, assertOnFailureForUndici, proxyAgentOnFirstUse, llhttpAsFiles],
};
/**
 * What every start runs (src/main.ts and all it imports statically: commander, the command tree) is
 * dist/chunks/start.cjs, a CommonJS script that bin/svc loads through src/code-cache.ts (built on its
 * own as dist/chunks/code-cache.cjs), so V8's compiled code of it is kept between runs on every Node
 * line: Node 20 has no compile cache for ES modules, and compiling that chunk was a fifth of `--help`.
 * Its dynamic imports of svc's sources are chunks built with splitting, then made CommonJS files
 * loaded the same way (chunksAsScripts below). A module both reach is the start script's: the chunks
 * read it from a table the start script leaves on globalThis, so nothing loads twice. Four builds: the
 * start graph (to learn which modules it holds and which of svc's files it loads later), the chunks,
 * then the chunks as CommonJS files and the start script with its table.
 */
const START_FILE = 'chunks/start.cjs';
const START_TABLE = "globalThis[Symbol.for('svc.start')]";
const lazyName = (path) =>
  path.startsWith(`${root}src/`)
    ? path
        .slice(`${root}src/`.length)
        .replace(/\.[cm]?[jt]s$/, '')
        .replaceAll('/', '-')
    : path
        .replace(/^.*[\\/]node_modules[\\/]/, '')
        .split(/[\\/]/)
        .slice(0, path.includes('/node_modules/@') ? 2 : 1)
        .join('-')
        .replace(/^@/, '');
const lazyEntries = new Map();

function startGraph(closure, shared) {
  return {
    name: 'start-graph',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.namespace !== 'file' || !args.importer.startsWith(`${root}src/`)) return undefined;
        const r = await b.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir });
        if (r.errors.length) return { errors: r.errors };
        if (r.external || r.namespace !== 'file') return undefined;
        if (closure?.has(r.path)) return undefined;
        lazyEntries.set(lazyName(r.path), r.path);
        return chunkOf(`${lazyName(r.path)}.cjs`, args.kind);
      });
      chunkLoader(b);
      if (!shared) return;
      b.onResolve({ filter: /^svc-start$/ }, () => ({ path: 'svc-start', namespace: 'svc-start-entry' }));
      b.onLoad({ filter: /.*/, namespace: 'svc-start-entry' }, () => {
        const lines = [`export * from ${JSON.stringify(`${root}src/main.ts`)};`, 'const table = {};'];
        [...shared].forEach(([path, format], i) => {
          // A CommonJS module is its module.exports; an ES module its namespace, marked as one.
          lines.push(
            format === 'cjs' ? `import m${i} from ${JSON.stringify(path)};` : `import * as m${i} from ${JSON.stringify(path)};`,
            format === 'cjs' ? '' : `Object.defineProperty(m${i}, '__esModule', { value: true });`,
            `table[${JSON.stringify(path)}] = m${i};`,
          );
        });
        lines.push(`${START_TABLE} = table;`);
        return { contents: lines.join('\n'), resolveDir: root, loader: 'js' };
      });
    },
  };
}

/**
 * An import of the chunk `name` (a CommonJS file of dist/chunks) from a CommonJS file of the
 * bundle: the chunk runs through src/code-cache.ts (dist/chunks/code-cache.cjs, bin/svc's), with
 * its V8 code cache, once however many files import it. A dynamic import() loads it on first use.
 */
const chunkOf = (name, kind) => ({ path: name, namespace: 'svc-chunk', pluginData: { dynamic: kind === 'dynamic-import' } });
function chunkLoader(b) {
  b.onResolve({ filter: /^\.\/code-cache\.cjs$/, namespace: 'svc-chunk' }, (args) => ({ path: args.path, external: true }));
  b.onLoad({ filter: /.*/, namespace: 'svc-chunk' }, (args) => ({
    contents: `module.exports = require('./code-cache.cjs').${args.pluginData.dynamic ? 'importChunk' : 'requireChunk'}(__dirname, ${JSON.stringify(args.path)});`,
    loader: 'js',
  }));
}

/** In the chunks, a module of the start script is its entry in the table. */
function fromStart(closure, shared) {
  return {
    name: 'from-start',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.fromStart || args.namespace === 'svc-start' || !args.resolveDir) return undefined;
        const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { fromStart: true } });
        if (r.errors.length || r.external || r.namespace !== 'file' || !closure.has(r.path)) return undefined;
        shared.set(r.path, closure.get(r.path));
        return { path: r.path, namespace: 'svc-start' };
      });
      b.onLoad({ filter: /.*/, namespace: 'svc-start' }, (args) => ({
        contents: `module.exports = ${START_TABLE}[${JSON.stringify(args.path)}];`,
        loader: 'js',
      }));
    },
  };
}

/** src/code-cache.ts is bin/svc's (dist/chunks/code-cache.cjs): the chunks require that file. */
const codeCacheFromBin = {
  name: 'code-cache-from-bin',
  setup(b) {
    b.onResolve({ filter: /code-cache\.(ts|js)$/ }, async (args) =>
      args.path.endsWith(`${root}src/code-cache.ts`) || /^\.{1,2}\/code-cache\.js$/.test(args.path)
        ? { path: 'code-cache', namespace: 'svc-code-cache' }
        : undefined,
    );
    b.onResolve({ filter: /^\.\/code-cache\.cjs$/, namespace: 'svc-code-cache' }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'svc-code-cache' }, () => ({ contents: "module.exports = require('./code-cache.cjs');", loader: 'js' }));
  },
};

/**
 * import.meta.url in a CommonJS file of the bundle, made on first read: five files read it, and each file
 * making its URL as it loaded (a path resolve and a URL parse) cost `list` one for each of its 27 files.
 */
const IMPORT_META_BANNER = "const __svcImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };";

const startOptions = {
  ...sdkOptions,
  outfile: `${staging}/${START_FILE}`,
  format: 'cjs',
  banner: { js: IMPORT_META_BANNER },
  define: { ...options.define, 'import.meta.url': '__svcImportMeta.url' },
  // The start script's import() of a chunk is a require() of it: the script runs as a vm.Script,
  // whose import() Node 20 does not serve once its code comes from the cache.
  supported: { 'dynamic-import': false },
};
const codeCacheOptions = {
  ...startOptions,
  entryPoints: ['src/code-cache.ts'],
  outfile: `${staging}/chunks/code-cache.cjs`,
  plugins: [],
  define: options.define,
};

/**
 * The chunks of the sources' dynamic imports are built as ES modules with splitting (esbuild cannot
 * split a CommonJS bundle), then each is made a CommonJS file of its own by a second build, in
 * which an import of another chunk is a requireChunk (importChunk for an import()) of
 * src/code-cache.ts: on every Node line each chunk runs as a vm.Script with V8's cached data, and
 * Node 20 no longer resolves and compiles a verb's chunks through its ES-module loader on every run
 * (a fifth of `svc databases list`). The worker threads' entries and the MCP SDK's file stay ES
 * modules: they import no chunk.
 */
const ESM_FILES = new Set(['chunks/jq-worker.mjs', 'chunks/prefix-hash-worker.mjs', MCP_SDK_FILE]);
async function chunksAsScripts(metafile) {
  const files = Object.keys(metafile.outputs)
    .map((f) => f.slice(`${staging}/`.length))
    .filter((f) => f.endsWith('.mjs') && !ESM_FILES.has(f));
  const names = new Set(files.map((f) => f.slice('chunks/'.length)));
  await build({
    ...startOptions,
    entryPoints: Object.fromEntries(files.map((f) => [f.replace(/\.mjs$/, ''), `${root}/${staging}/${f}`])),
    outfile: undefined,
    outdir: staging,
    outExtension: { '.js': '.cjs' },
    packages: 'external',
    banner: { js: IMPORT_META_BANNER },
    define: { 'import.meta.url': '__svcImportMeta.url' },
    plugins: [
      {
        name: 'chunks-as-scripts',
        setup(b) {
          // Read apart from their .mjs name, whose "node mode" would make each import()'s default export the whole
          // module: the chunks are ES modules turned CommonJS (marked __esModule), not CommonJS packages.
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === 'entry-point' ? { path: args.path.replace(/\.mjs$/, '.chunk'), namespace: 'svc-esm-chunk' } : undefined,
          );
          b.onLoad({ filter: /.*/, namespace: 'svc-esm-chunk' }, (args) => ({
            contents: readFileSync(args.path.replace(/\.chunk$/, '.mjs'), 'utf8'),
            resolveDir: dirname(args.path),
            loader: 'js',
          }));
          b.onResolve({ filter: /^\.\/[\w-]+\.mjs$/ }, (args) =>
            names.has(args.path.slice(2)) ? chunkOf(args.path.slice(2).replace(/\.mjs$/, '.cjs'), args.kind) : { path: args.path, external: true },
          );
          chunkLoader(b);
        },
      },
    ],
  });
  for (const f of files) rmSync(`${root}/${staging}/${f}`);
}

const result = await (async () => {
  const graph = await build({
    ...startOptions,
    entryPoints: ['src/main.ts'],
    write: false,
    metafile: true,
    plugins: [lazyChildProcessForCommander, startGraph()],
  });
  const closure = new Map(
    Object.entries(graph.metafile.inputs)
      .filter(([key]) => !key.includes(':'))
      .map(([key, input]) => [`${root}${key}`, input.format]),
  );
  const shared = new Map();
  const entryPoints = { ...options.entryPoints };
  for (const [name, path] of lazyEntries) if (!closure.has(path)) entryPoints[`chunks/${name}`] = path;
  const [chunks] = await Promise.all([
    build({ ...options, entryPoints, metafile: true, plugins: [codeCacheFromBin, fromStart(closure, shared), ...options.plugins] }),
    build(sdkOptions),
    build(undiciOptions),
    build(codeCacheOptions),
  ]);
  await Promise.all([
    chunksAsScripts(chunks.metafile),
    build({ ...startOptions, entryPoints: ['svc-start'], plugins: [lazyChildProcessForCommander, startGraph(closure, shared)] }),
  ]);
  directChunkInterop(`${root}/${staging}/chunks`);
  writeLlhttpFiles();
  return chunks;
})().catch((err) => {
  rmSync(`${root}/${staging}`, { recursive: true, force: true });
  throw err;
});

const retired = `${root}/dist.old-${process.pid}`;
try {
  renameSync(`${root}/dist`, retired);
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
renameSync(`${root}/${staging}`, `${root}/dist`);
rmSync(retired, { recursive: true, force: true });

if (options.metafile) {
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    if (file.endsWith('.map')) continue;
    const inputs = Object.entries(out.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
    const pkgs = new Map();
    for (const [name, { bytesInOutput }] of inputs) {
      const key = name.startsWith('node_modules/')
        ? name
            .split('/')
            .slice(0, name.split('/')[1].startsWith('@') ? 3 : 2)
            .join('/')
        : name;
      pkgs.set(key, (pkgs.get(key) ?? 0) + bytesInOutput);
    }
    const top = [...pkgs]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}K`);
    console.log(
      `${file} ${(out.bytes / 1024).toFixed(1)}K imports=[${out.imports
        .filter((i) => !i.external)
        .map((i) => `${i.kind === 'dynamic-import' ? '~' : ''}${i.path.replace('dist/chunks/', '')}`)
        .join(' ')}]\n   ${top.join(', ')}`,
    );
  }
}
