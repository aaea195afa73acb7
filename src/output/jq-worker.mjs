// @ts-check
/**
 * The thread --jq runs in (output/jq-thread.ts starts it and owns it): jq-web's jq, run once per
 * request. Plain JavaScript, checked by tsc: Node 20 runs no TypeScript in a worker, and this one
 * file then serves from the sources and, as an entry of the bundle (tools/bundle.mjs), from dist/.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

/** @typedef {import('./jq-thread.js').JqRequest} JqRequest */
/** @typedef {import('./jq-thread.js').JqReply} JqReply */
/** @typedef {{ raw(input: string, filter: string, flags: string[]): string | undefined }} JqWeb */

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const { wasmLimitBytes } = /** @type {import('./jq-thread.js').JqWorkerData} */ (workerData);

// jq-web's Emscripten build lets its memory grow to 2 GiB (getHeapMax in jq.js), and a worker's
// resourceLimits leave WebAssembly memory out. Each growth is a Memory#grow call (jq.js's growMemory,
// from emscripten_resize_heap), which catches a refusal: malloc then fails and jq stops with "jq:
// error: cannot allocate memory", as it does when the system says no. jq's is the only WebAssembly
// instance in this thread, so the limit is jq's alone.
/** @typedef {{ buffer: ArrayBuffer, grow(pages: number): number }} WasmMemory */
/** @type {{ prototype: WasmMemory }} (TypeScript knows WebAssembly's values only with the DOM lib) */
const Memory = Reflect.get(globalThis, 'WebAssembly').Memory;
const grow = Memory.prototype.grow;
/** @this {WasmMemory} @param {number} pages */
Memory.prototype.grow = function (pages) {
  if (this.buffer.byteLength + pages * 65536 > wasmLimitBytes) throw new RangeError('over the memory limit svc sets for --jq');
  return grow.call(this, pages);
};

/**
 * jq's command line on one input: its stdout, or its exit status and stderr. An error without an
 * exit status is jq-web itself stopping (Emscripten's abort(), as after "cannot allocate memory").
 * @param {JqWeb} jq
 * @param {JqRequest} request
 * @returns {JqReply}
 */
function run(jq, { input, expression, flags }) {
  try {
    return { kind: 'done', stdout: jq.raw(input, expression, flags) };
  } catch (err) {
    const failed = /** @type {{ exitCode?: unknown, stderr?: unknown, message?: unknown }} */ (err ?? {});
    const exitCode = typeof failed.exitCode === 'number' ? failed.exitCode : undefined;
    return { kind: 'failed', exitCode, stderr: String(failed.stderr ?? ''), reason: String(failed.message ?? err) };
  }
}

try {
  // jq-web is CommonJS whose export is a promise of the instance; it reads jq.wasm from beside itself.
  const jq = /** @type {JqWeb} */ (await createRequire(import.meta.url)('jq-web'));
  port.on('message', (/** @type {JqRequest} */ request) => port.postMessage(run(jq, request)));
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  port.on('message', () => port.postMessage(/** @type {JqReply} */ ({ kind: 'unavailable', message })));
}
