import { setV8Flags } from './code-cache.js';

/**
 * Node 20's V8 (11.3) compiles a WebAssembly module a second time, optimised, on a background
 * thread, and a process that exits waits for that to finish: 70-90 ms after the output of every
 * run that parsed an HTTP response with undici's llhttp. Baseline code is plenty for HTTP heads.
 * Called before llhttp is compiled; the flags are read at compile time. Node 22 and later do not
 * wait at exit, and there the flags would only cost. (--jq's worker thread is stopped at exit
 * without waiting: jq keeps its optimised code.)
 */
export function baselineWasmOnNode20(): void {
  if (Number(process.versions.node.split('.')[0]) >= 22) return;
  setV8Flags('--no-wasm-tier-up', '--no-wasm-dynamic-tiering');
}
