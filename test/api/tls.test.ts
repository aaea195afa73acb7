/**
 * Private certificate authorities (cli-contract 1): `svc sandbox --tls-cert/--tls-key` serves HTTPS
 * with a certificate from a CA this test makes; the built CLI trusts it through NODE_EXTRA_CA_CERTS
 * (read by Node at start-up, hence real processes), and without it fails with exit 9, naming the
 * host and the variable.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cleanupBuiltCli, ensureBuilt, spawnSvc, waitForOutput } from '../support/built-cli.js';
import { startForwardProxy } from '../support/forward-proxy.js';
import { makePrivateCa, type PrivateCa } from '../support/private-ca.js';

const FULL_TOKEN = 'svc_sandbox_3eb1d95aaff52a54cd98169b4d6d4c70';

describe('HTTPS with a private CA', () => {
  let ca: PrivateCa;
  let baseUrl: string;
  let sandbox: ReturnType<typeof spawnSvc>;

  beforeAll(async () => {
    [ca] = await Promise.all([makePrivateCa(), ensureBuilt()]);
    sandbox = spawnSvc(['sandbox', '--port', '0', '--json', '--tls-cert', ca.certFile, '--tls-key', ca.keyFile], { env: cleanEnv(), timeoutMs: 120_000 });
    baseUrl = JSON.parse(await waitForOutput(sandbox, 'stdout', /\n}\n$/)).baseUrl;
  }, 180_000);

  afterAll(async () => {
    sandbox?.kill('SIGTERM');
    await sandbox;
    cleanupBuiltCli();
    if (ca) rmSync(ca.dir, { recursive: true, force: true });
  });

  it('the sandbox serves https:// with the given certificate', () => {
    expect(baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('with NODE_EXTRA_CA_CERTS naming the CA, svc talks to it', async () => {
    const r = await spawnSvc(['databases', 'list', '--json'], {
      env: cleanEnv({ SVC_BASE_URL: baseUrl, SVC_API_KEY: FULL_TOKEN, NODE_EXTRA_CA_CERTS: ca.caFile }),
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout)).databases.length).toBeGreaterThan(0);
  });

  it('through HTTPS_PROXY (given without a scheme, as curl takes it): a CONNECT tunnel to the service', async () => {
    const proxy = await startForwardProxy();
    try {
      const r = await spawnSvc(['databases', 'list', '--json'], {
        env: cleanEnv({ SVC_BASE_URL: baseUrl, SVC_API_KEY: FULL_TOKEN, NODE_EXTRA_CA_CERTS: ca.caFile, HTTPS_PROXY: proxy.host }),
      });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(JSON.parse(String(r.stdout)).databases.length).toBeGreaterThan(0);
      expect(proxy.log).toEqual([`CONNECT ${new URL(baseUrl).host}`]);
    } finally {
      await proxy.stop();
    }
  });

  it('without it: exit 9, and the message names the host and the variable to set', async () => {
    const r = await spawnSvc(['databases', 'list', '--max-retries', '0'], { env: cleanEnv({ SVC_BASE_URL: baseUrl, SVC_API_KEY: FULL_TOKEN }) });
    expect(r.exitCode).toBe(9);
    const host = new URL(baseUrl).host;
    expect(String(r.stderr)).toContain(`error: The TLS certificate of ${host} is not trusted here (`);
    expect(String(r.stderr)).toContain(`set NODE_EXTRA_CA_CERTS to its PEM file`);
    expect(String(r.stdout)).toBe('');
    expect(String(r.stderr)).not.toContain(FULL_TOKEN);
  });

  it('--json: the envelope carries code tls_failed', async () => {
    const r = await spawnSvc(['databases', 'list', '--max-retries', '0', '--json'], { env: cleanEnv({ SVC_BASE_URL: baseUrl, SVC_API_KEY: FULL_TOKEN }) });
    expect(r.exitCode).toBe(9);
    expect(JSON.parse(String(r.stderr)).error).toMatchObject({ code: 'tls_failed', status: null });
  });
});
