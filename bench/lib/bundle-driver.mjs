/**
 * bench/lib/download-driver.mjs and the src/ it imports, bundled by esbuild (a devDependency, as in
 * tools/bundle.mjs) into one ESM file in a temp dir removed at cleanup. The download rows run this
 * bundle with plain node: under tsx the process would carry tsx's loader and its TypeScript
 * transforms (about 40 MiB of RSS and a few hundred ms of start-up) that svc's own bundle does not.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { ROOT, tempDir } from './common.mjs';

export async function bundleDriver() {
  const dir = tempDir('svc-bench-driver-');
  const outfile = join(dir, 'download-driver.mjs');
  await build({
    absWorkingDir: ROOT,
    // The hashing thread's file goes beside the driver, where prefix-hasher.ts looks for it.
    entryPoints: {
      'download-driver': join(ROOT, 'bench/lib/download-driver.mjs'),
      'prefix-hash-worker': join(ROOT, 'src/restore/download/prefix-hash-worker.mjs'),
    },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // As in tools/bundle.mjs: CommonJS dependencies (undici) call require() for node built-ins.
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return outfile;
}
