/**
 * What undici gets for require('node:http2') in the bundle (tools/bundle.mjs). Its client-h2.js
 * loads node:http2, and with it tls and crypto, as soon as undici loads, only to read the constants
 * below; svc never speaks HTTP/2 (undici's allowH2 is off), so node:http2 itself loads only if
 * connect() is ever called. test/api/undici-core.test.ts checks these against node:http2 and
 * against what client-h2.js reads.
 */
export const constants = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP2_HEADER_EXPECT: 'expect',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_HEADER_PROTOCOL: ':protocol',
  NGHTTP2_REFUSED_STREAM: 7,
  NGHTTP2_CANCEL: 8,
} as const;

export function connect(...args: unknown[]): unknown {
  return (process.getBuiltinModule('node:http2').connect as (...a: unknown[]) => unknown)(...args);
}
