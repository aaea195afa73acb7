/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY (cli-contract 1), through a real forward proxy on loopback:
 * API requests and the artifact download both go through it, NO_PROXY bypasses it, a dead proxy
 * is exit 9 naming it without its credentials, and a proxy that wants credentials says so.
 * The restore case runs the built CLI against the sandbox and a throwaway PostgreSQL cluster.
 */
import { delimiter } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { cleanEnv, cleanupBuiltCli, ensureBuilt, spawnSvc } from '../support/built-cli.js';
import { startForwardProxy, type ForwardProxy } from '../support/forward-proxy.js';
import { closedPort } from '../support/loopback-server.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { runCli } from '../support/run-cli.js';

let sb: RunningSandbox;
let proxy: ForwardProxy;

beforeAll(async () => {
  [sb, proxy] = await Promise.all([startSandbox({ port: 0 }), startForwardProxy()]);
});

afterEach(() => {
  proxy.log.length = 0;
});

afterAll(async () => {
  await Promise.all([sb.stop(), proxy.stop()]);
});

const api = (extra: Record<string, string>) => ({ SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.token('full'), ...extra });

describe('API requests', () => {
  it.each(['HTTP_PROXY', 'http_proxy'])('%s sends them through the proxy', async (variable) => {
    const r = await runCli(['databases', 'list', '--json'], { env: api({ [variable]: proxy.url }) });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.log).toEqual([`GET ${sb.baseUrl}/api/v1/databases`]);
  });

  it('HTTPS_PROXY alone does not apply to an http:// service (as curl reads it)', async () => {
    const r = await runCli(['profile', '--json'], { env: api({ HTTPS_PROXY: proxy.url }) });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.log).toEqual([]);
  });

  it.each([
    ['NO_PROXY', '127.0.0.1'],
    ['no_proxy', 'localhost,127.0.0.1'],
    ['NO_PROXY', '*'],
  ])('%s=%s bypasses the proxy', async (variable, value) => {
    const r = await runCli(['profile', '--json'], { env: api({ HTTP_PROXY: proxy.url, [variable]: value }) });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.log).toEqual([]);
  });

  it('a proxy nobody listens on: exit 9 naming the proxy host, never its password', async () => {
    const port = await closedPort();
    const r = await runCli(['--max-retries', '0', 'databases', 'list'], { env: api({ HTTP_PROXY: `http://ops:pr0xy-Secret@127.0.0.1:${port}` }) });
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(`error: Could not reach the service at ${new URL(sb.baseUrl).host} through the proxy 127.0.0.1:${port} (from HTTP_PROXY): ECONNREFUSED.`);
    expect(r.stderr).toContain('NO_PROXY');
    expect(r.stdout + r.stderr).not.toContain('pr0xy-Secret');
  });

  it('a proxy that wants credentials: with them it works; without, exit 9 saying so', async () => {
    const guarded = await startForwardProxy({ credentials: { user: 'ops', password: 'pr0xy-Secret' } });
    try {
      const ok = await runCli(['profile', '--json'], { env: api({ HTTP_PROXY: guarded.url }) });
      expect(ok.code, ok.stderr).toBe(0);
      expect(guarded.log).toEqual([`GET ${sb.baseUrl}/api/v1/profile`]);

      const refused = await runCli(['--max-retries', '0', 'profile'], { env: api({ HTTP_PROXY: `http://${guarded.host}` }) });
      expect(refused.code).toBe(9);
      expect(refused.stderr).toContain(`error: The proxy ${guarded.host} refused the request: it wants credentials (HTTP 407).`);
      expect(ok.stdout + ok.stderr + refused.stderr).not.toContain('pr0xy-Secret');
    } finally {
      await guarded.stop();
    }
  });
});

const skip = pgSkipReason();
if (skip) console.warn(`test/api/proxy.test.ts restore case skipped: ${skip}`);

describe.skipIf(!!skip)('a restore through the proxy (built CLI, real PostgreSQL)', () => {
  let cluster: PgCluster;

  beforeAll(async () => {
    [cluster] = await Promise.all([startCluster(), ensureBuilt()]);
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    cleanupBuiltCli();
  });

  it('createRestore and the artifact download both go through HTTP_PROXY; NO_PROXY takes both off it', async () => {
    const env = (db: string, extra: Record<string, string>) =>
      cleanEnv({ ...api(extra), PATH: `${cluster.binDir}${delimiter}${process.env.PATH}`, SVC_TARGET_DSN: cluster.dsn(db, true) });

    const through = await spawnSvc(['restore', 'create', '--backup', 'bj_0007'], { env: env('via_proxy', { HTTP_PROXY: proxy.url }) });
    expect(through.exitCode, String(through.stderr)).toBe(0);
    const origin = sb.baseUrl;
    expect(proxy.log).toContain(`POST ${origin}/api/v1/restores`);
    expect(proxy.log.some((l) => l.startsWith(`GET ${origin}/artifacts/`))).toBe(true);
    // The proxy saw the presigned URL (it is on the path); svc's own output never shows it.
    expect(String(through.stdout) + String(through.stderr)).not.toMatch(/X-Amz-Signature|\/artifacts\//);
    expect(await cluster.psql('SELECT count(*) FROM orders', 'via_proxy')).toBe('5000');

    proxy.log.length = 0;
    const bypass = await spawnSvc(['restore', 'create', '--backup', 'bj_0007'], { env: env('no_proxy', { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }) });
    expect(bypass.exitCode, String(bypass.stderr)).toBe(0);
    expect(proxy.log).toEqual([]);
  }, 120_000);
});
