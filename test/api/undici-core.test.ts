/**
 * src/api/undici-core.ts imports undici's own files instead of its public entry (start-up: see
 * there). Those files are undici's internals, not its API: these cases fail when the installed
 * undici or package.json's pin is not the version the imports were written against, so moving to
 * another undici is a deliberate change that reads its index.js again.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as undici from 'undici';
import { EnvHttpProxyAgent, UNDICI_VERSION } from '../../src/api/undici-core.js';

const json = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

describe('undici, imported module by module', () => {
  it('package.json and its lock pin undici exactly, at the version undici-core.ts names', () => {
    expect(json('../../package.json').devDependencies.undici).toBe(UNDICI_VERSION);
    const lock = json('../../package-lock.json');
    expect(lock.packages[''].devDependencies.undici).toBe(UNDICI_VERSION);
    expect(lock.packages['node_modules/undici'].version).toBe(UNDICI_VERSION);
  });

  it('the undici installed is that version', () => {
    expect(json('../../node_modules/undici/package.json').version).toBe(UNDICI_VERSION);
  });

  it('the file imported is the class undici exports, and every dispatcher has request() and connect()', () => {
    expect(EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
    const agent = new EnvHttpProxyAgent({ httpProxy: '', httpsProxy: '', noProxy: '' });
    expect(typeof agent.request).toBe('function');
    expect(typeof agent.connect).toBe('function');
    void agent.close();
  });
});

describe('the node:http2 stand-in the bundle gives undici (src/api/undici-http2.ts)', () => {
  it('holds every constant client-h2.js reads when it loads, with node:http2 values', async () => {
    const stand = await import('../../src/api/undici-http2.js');
    const http2 = await import('node:http2');
    const source = readFileSync(new URL('../../node_modules/undici/lib/dispatcher/client-h2.js', import.meta.url), 'utf8');
    const read = /const \{\s*constants: \{([^}]*)\}\s*\} = http2/
      .exec(source)?.[1]
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    expect(read?.length).toBeGreaterThan(0);
    expect(Object.keys(stand.constants).sort()).toEqual([...read!].sort());
    for (const [name, value] of Object.entries(stand.constants)) expect(value, name).toBe(http2.constants[name as keyof typeof http2.constants]);
  });

  it('uses nothing else of node:http2 than connect()', () => {
    const source = readFileSync(new URL('../../node_modules/undici/lib/dispatcher/client-h2.js', import.meta.url), 'utf8');
    expect([...new Set([...source.matchAll(/\bhttp2\.(\w+)/g)].map((m) => m[1]))]).toEqual(['connect']);
  });
});

describe('the node:http stand-in the bundle gives undici (src/api/undici-http.ts)', () => {
  const read = (file: string) => readFileSync(new URL(`../../node_modules/undici/lib/${file}`, import.meta.url), 'utf8');

  it('holds the limit node:http has (this node runs without --max-http-header-size)', async () => {
    const stand = await import('../../src/api/undici-http.js');
    const http = await import('node:http');
    expect(stand.maxHeaderSize).toBe(http.maxHeaderSize);
  });

  it('the two files it stands in for read nothing else of node:http than maxHeaderSize and IncomingMessage', () => {
    expect(read('core/util.js')).toMatch(/^const \{ IncomingMessage \} = require\('node:http'\)$/m);
    expect([...read('core/util.js').matchAll(/\bIncomingMessage\b/g)]).toHaveLength(2);
    expect(read('core/util.js')).toContain('Object.getPrototypeOf(stream).constructor === IncomingMessage');
    expect([...new Set([...read('dispatcher/client.js').matchAll(/\bhttp\.(\w+)/g)].map((m) => m[1]))]).toEqual(['maxHeaderSize']);
  });
});

describe('the ProxyAgent stand-in the bundle gives env-http-proxy-agent.js (src/api/undici-proxy-agent.cjs)', () => {
  it('that file only constructs a ProxyAgent (with new), so a constructor that returns the real one stands in for the class', () => {
    const source = readFileSync(new URL('../../node_modules/undici/lib/dispatcher/env-http-proxy-agent.js', import.meta.url), 'utf8');
    expect(source).toMatch(/^const ProxyAgent = require\('\.\/proxy-agent'\)$/m);
    // Its require, and then only `new ProxyAgent(...)`: no static member, no instanceof.
    expect(source.match(/\bProxyAgent\b/g)?.length).toBe(1 + (source.match(/\bnew ProxyAgent\(/g)?.length ?? 0));
  });

  it('what it constructs is undici ProxyAgent', async () => {
    const { createRequire } = await import('node:module');
    const StandIn = createRequire(import.meta.url)('../../src/api/undici-proxy-agent.cjs') as new (opts: unknown) => object;
    const agent = new StandIn({ uri: 'http://127.0.0.1:3128' });
    expect(agent).toBeInstanceOf(undici.ProxyAgent);
    await (agent as InstanceType<typeof undici.ProxyAgent>).close();
  });
});

describe('the node:assert stand-in the bundle gives undici (src/api/undici-assert.cjs)', () => {
  const standIn = async () => {
    const { createRequire } = await import('node:module');
    return createRequire(import.meta.url)('../../src/api/undici-assert.cjs') as (...args: unknown[]) => void;
  };

  it('lets a value that holds pass', async () => {
    const assert = await standIn();
    expect(assert(true)).toBeUndefined();
    expect(assert(1, 'one')).toBeUndefined();
  });

  it("throws node:assert's own AssertionError, message and all, for one that does not", async () => {
    const assert = await standIn();
    const { AssertionError } = await import('node:assert');
    expect(() => assert(false, 'the invariant')).toThrow(AssertionError);
    expect(() => assert(null, 'the invariant')).toThrow(expect.objectContaining({ code: 'ERR_ASSERTION', message: 'the invariant' }));
    expect(() => assert()).toThrow(expect.objectContaining({ code: 'ERR_ASSERTION', message: 'No value argument passed to `assert.ok()`' }));
  });
});
