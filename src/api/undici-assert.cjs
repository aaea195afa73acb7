'use strict';
/**
 * What undici gets for require('node:assert') in undici-core.cjs (tools/bundle.mjs). Nine of the
 * files svc bundles load node:assert as undici loads (and with it Node's AssertionError, its diff
 * and colour helpers: a few million instructions of every `svc databases list`) only to call
 * assert(value) on invariants that hold. node:assert is loaded when one does not: the error thrown
 * is still Node's AssertionError. test/e2e/startup-graph.test.ts checks that those files call
 * nothing else of it.
 */
module.exports = function assert(...args) {
  if (!args[0]) require('node:assert')(...args);
};
