/**
 * The parts of undici svc uses, module by module. Its public entry also loads fetch, WebSocket,
 * EventSource, the caches, the mock agents and the cookie helpers (which read globalThis.Headers,
 * and on Node 20 that loads Node's own copy of undici too): some 700 KB that Node 20, having no
 * compile cache, compiled on every run that sends a request.
 * These paths are undici's files, not its documented API: package.json pins undici exactly, and
 * test/api/undici-core.test.ts fails when the installed version is not UNDICI_VERSION.
 */
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import connect from 'undici/lib/api/api-connect.js';
import request from 'undici/lib/api/api-request.js';
import { baselineWasmOnNode20 } from '../wasm-baseline.js';

/** The undici these imports were written against: read its index.js again before changing it. */
export const UNDICI_VERSION = '7.30.2';

// What undici's index.js does with lib/api/index.js, for the two of its methods svc needs: every
// dispatcher gets request(), and connect(), which ProxyAgent calls on its client to open a CONNECT
// tunnel to an https:// origin (stream(), pipeline() and upgrade() are not loaded).
Object.assign(Dispatcher.prototype, { request, connect });

// llhttp, undici's HTTP parser, is WebAssembly compiled on the first connection.
baselineWasmOnNode20();

export { EnvHttpProxyAgent };
