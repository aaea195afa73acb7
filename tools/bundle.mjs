/**
 * The bundle bin/svc runs: dist/svc.mjs plus lazily loaded chunks in dist/chunks/. tsc still emits
 * dist/**\/*.js beside it (tests and scripts import those); this only adds the start-up-friendly
 * build: one file to parse for `svc --help`, and each command's work, the sandbox, the restore
 * engine, ora and @clack/prompts in chunks that load on first use (dynamic import() in the sources).
 */
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));

rmSync(`${root}/dist/chunks`, { recursive: true, force: true });

const REQUIRE_BANNER = "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);";

/**
 * commander requires node:child_process at load time (which pulls in node:net), only to spawn
 * executable subcommands, which svc does not have: about 5 ms of every start-up. Its require gets a
 * stand-in that loads the real module on first use.
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

const result = await build({
  absWorkingDir: root,
  entryPoints: { svc: 'src/main.ts' },
  outdir: 'dist',
  // Chunks sit two levels below the package root, like src/<dir>/*.ts: import.meta.url-relative
  // paths such as the sandbox's ../../fixtures/ resolve the same from sources, tsc output and bundle.
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // keytar is a native optional dependency, resolved at run time if it is installed at all.
  external: ['keytar'],
  plugins: [lazyChildProcessForCommander],
  define: { __SVC_VERSION__: JSON.stringify(version) },
  // CommonJS dependencies (commander, cli-table3) call require() for node built-ins.
  banner: { js: REQUIRE_BANNER },
  // Whitespace and syntax only: identifiers keep their names, so error names and stacks stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: process.env.SVC_BUNDLE_META === '1',
});

/**
 * Only the chunk holding esbuild's __require helper uses the real require; every other chunk calls
 * that helper. The banner's createRequire() costs a little at each chunk's load, so it is blanked
 * out (kept as an empty line, so the source maps stay aligned) where nothing reads `require`.
 */
for (const dir of ['dist', 'dist/chunks']) {
  for (const name of readdirSync(`${root}/${dir}`)) {
    if (!name.endsWith('.mjs')) continue;
    const file = `${root}/${dir}/${name}`;
    const text = readFileSync(file, 'utf8');
    if (!text.startsWith(REQUIRE_BANNER)) continue;
    const body = text.slice(REQUIRE_BANNER.length);
    if (!/(?<![\w$])require(?![\w$])/.test(body)) writeFileSync(file, body);
  }
}

if (result.metafile) {
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    if (file.endsWith('.map')) continue;
    const inputs = Object.entries(out.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
    const pkgs = new Map();
    for (const [name, { bytesInOutput }] of inputs) {
      const key = name.startsWith('node_modules/') ? name.split('/').slice(0, name.split('/')[1].startsWith('@') ? 3 : 2).join('/') : name;
      pkgs.set(key, (pkgs.get(key) ?? 0) + bytesInOutput);
    }
    const top = [...pkgs].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}K`);
    console.log(`${file} ${(out.bytes / 1024).toFixed(1)}K imports=[${out.imports.filter((i) => !i.external).map((i) => `${i.kind === 'dynamic-import' ? '~' : ''}${i.path.replace('dist/chunks/', '')}`).join(' ')}]\n   ${top.join(', ')}`);
  }
}
