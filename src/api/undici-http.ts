/**
 * What undici gets for require('node:http') in undici-core.cjs (tools/bundle.mjs), from its
 * core/util.js and dispatcher/client.js only. They load node:http (and with it Node's HTTP client
 * and server, a tenth of what `svc databases list` runs at start-up) to read two things:
 * - maxHeaderSize, the default limit of a response's head: Node's, unless node runs with
 *   --max-http-header-size (on its command line or in NODE_OPTIONS), when node:http is asked;
 * - IncomingMessage, to clear the socket of a request body of that class before destroying it:
 *   svc's request bodies are strings, never one of those, so a class no object has stands in.
 * test/api/undici-core.test.ts checks both against node:http and against what undici reads.
 */
const NODE_DEFAULT_MAX_HEADER_SIZE = 16 * 1024;

const configured = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => arg.includes('--max-http-header-size'));

export const maxHeaderSize: number = configured ? process.getBuiltinModule('node:http').maxHeaderSize : NODE_DEFAULT_MAX_HEADER_SIZE;

export class IncomingMessage {}
