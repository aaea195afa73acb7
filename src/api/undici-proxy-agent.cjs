'use strict';
/**
 * What undici's env-http-proxy-agent.js gets for require('./proxy-agent') in undici-core.cjs
 * (tools/bundle.mjs): a constructor that loads undici's ProxyAgent, and with it the SOCKS5 agent
 * and client and the CONNECT tunnel code, when the first proxy is set up. EnvHttpProxyAgent builds
 * one only for an HTTP_PROXY or HTTPS_PROXY that is set, so a run without a proxy never loads them.
 * `new` of a function that returns an object gives that object: the real ProxyAgent.
 * test/api/undici-core.test.ts checks that env-http-proxy-agent.js only constructs it.
 */
module.exports = function ProxyAgent(opts) {
  const RealProxyAgent = require('undici/lib/dispatcher/proxy-agent.js');
  return new RealProxyAgent(opts);
};
