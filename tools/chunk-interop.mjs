/**
 * The one edit of emitted text in the build (tools/bundle.mjs): esbuild's CommonJS interop between
 * the bundle's own files, which it cannot be told to leave out.
 *
 * - An import of a chunk (`require_chunk_X`, a wrapper whose module.exports is requireChunk's) is
 *   `__toESM(require_chunk_X())`: a fresh object with a getter copied for every export of the chunk,
 *   made in every file that imports it (zod's chunk is imported by some forty). A chunk's exports are
 *   an ES module's, marked `__esModule`, so esbuild's interop reads the same properties from the
 *   chunk's own exports: the import is `require_chunk_X()`. Node-mode imports (`__toESM(m, 1)`, whose
 *   `default` is the whole module) are left alone.
 * - A file's exports are `module.exports = __toCommonJS(x_exports)`: a second copy, each getter
 *   calling the first. The exports object is marked `__esModule` instead and is module.exports.
 *
 * Reads stay live getters either way. `svc databases list` ran some 6 M fewer instructions on Node
 * 22 (docs/performance.md, "Start-up, sixth pass"). test/e2e/startup-graph.test.ts checks the result.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CHUNK_WRAPPER = /var (require_[\w$]+)=__commonJS\(\{"svc-chunk:/g;
const TO_COMMONJS = /module\.exports=__toCommonJS\(([\w$]+_exports)\)/g;

/** Rewrites the .cjs files of `dir`; throws where a file has the interop's marks but none was rewritten (another esbuild's output). */
export function directChunkInterop(dir) {
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.cjs'))) {
    const path = join(dir, name);
    const text = readFileSync(path, 'utf8');
    let out = text;
    for (const [, wrapper] of text.matchAll(CHUNK_WRAPPER)) out = out.replaceAll(`__toESM(${wrapper}())`, `${wrapper}()`);
    out = out.replace(TO_COMMONJS, (_, exports) => `module.exports=(__defProp(${exports},"__esModule",{value:!0}),${exports})`);
    if (/module\.exports\s*=\s*__toCommonJS\(/.test(out) || /__toESM\(require_chunk_[\w$]+\(\)\)/.test(out))
      throw new Error(`${name}: esbuild's interop is not in the form tools/chunk-interop.mjs rewrites`);
    if (out !== text) writeFileSync(path, out);
  }
}
