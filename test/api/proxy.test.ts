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
import { pgSkipReason, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
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
    expect(r.stderr).toContain(
      `error: Could not reach the service at ${new URL(sb.baseUrl).host} through the proxy 127.0.0.1:${port} (from HTTP_PROXY): ECONNREFUSED.`,
    );
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

const NOT_A_URL = 'it is not a URL (a bad port or an empty host are the usual causes)';

describe('proxy values as curl reads them (the built CLI)', () => {
  beforeAll(ensureBuilt, 180_000);
  afterAll(cleanupBuiltCli);

  const svc = (args: string[], extra: Record<string, string>) => spawnSvc(args, { env: cleanEnv(api(extra)) });

  it('a value without a scheme is an http:// proxy', async () => {
    const r = await svc(['databases', 'list', '--json'], { HTTP_PROXY: proxy.host });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(proxy.log).toEqual([`GET ${sb.baseUrl}/api/v1/databases`]);
  });

  it('credentials without a scheme reach the proxy, and the password is never shown', async () => {
    const guarded = await startForwardProxy({ credentials: { user: 'ops', password: 'pr0xy-Secret' } });
    try {
      const ok = await svc(['profile', '--json'], { http_proxy: `ops:pr0xy-Secret@${guarded.host}` });
      expect(ok.exitCode, String(ok.stderr)).toBe(0);
      expect(guarded.log).toEqual([`GET ${sb.baseUrl}/api/v1/profile`]);

      const wrong = await svc(['--max-retries', '0', 'profile'], { http_proxy: `ops:not-the-pr0xy-Secret@${guarded.host}` });
      expect(wrong.exitCode).toBe(9);
      expect(String(wrong.stderr)).toContain(`error: The proxy ${guarded.host} refused the request: it wants credentials (HTTP 407).`);
      expect(String(wrong.stderr)).toContain("Put the proxy's user and password in http_proxy");
      for (const r of [ok, wrong]) expect(String(r.stdout) + String(r.stderr)).not.toContain('pr0xy-Secret');
    } finally {
      await guarded.stop();
    }
  });

  it.each([
    ['HTTP_PROXY', 'socks5://ops:pr0xy-Secret@127.0.0.1:1080', 'svc speaks to http:// and https:// proxies only, not socks5://'],
    ['http_proxy', 'ftp://127.0.0.1:21', 'svc speaks to http:// and https:// proxies only, not ftp://'],
    ['HTTPS_PROXY', 'http://ops:pr0xy-Secret@127.0.0.1:99999', NOT_A_URL],
    ['https_proxy', 'ops:pr0xy-Secret@:3128', NOT_A_URL],
    ['HTTP_PROXY', 'http://ops:pr0xy-Secret@127.0.0.1:port', NOT_A_URL],
    ['HTTP_PROXY', 'ops:pr0xy-Secret@127.0.0.1:0', 'port 0 is not a port a proxy listens on'],
    ['HTTP_PROXY', '::not a proxy at all::', NOT_A_URL],
  ])('%s=%s: exit 2 naming the variable, nothing sent, no password shown', async (variable, value, why) => {
    for (const json of [false, true]) {
      const r = await svc(['databases', 'list', ...(json ? ['--json'] : [])], { [variable]: value });
      expect(r.exitCode, String(r.stderr)).toBe(2);
      expect(String(r.stdout)).toBe('');
      const stderr = String(r.stderr);
      if (json) {
        expect(JSON.parse(stderr).error).toMatchObject({ code: 'usage', message: `${variable} is not a proxy svc can use: ${why}.` });
      } else {
        expect(stderr).toContain(`error: ${variable} is not a proxy svc can use: ${why}`);
        expect(stderr).toContain(
          `Set ${variable} to host:port or http://host:port (user:password@host:port for a proxy that wants a login), or unset it; nothing was sent.`,
        );
      }
      expect(stderr).not.toContain('pr0xy-Secret');
      expect(stderr).not.toMatch(/TypeError|bug in svc/);
    }
    expect(proxy.log).toEqual([]);
  });

  it('the lower-case variable is the one read and named, as curl reads them', async () => {
    const r = await svc(['databases', 'list'], { http_proxy: 'gopher://127.0.0.1:70', HTTP_PROXY: proxy.url });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain('error: http_proxy is not a proxy svc can use');
  });
});

const skip = pgSkipReason();
if (skip) console.warn(`test/api/proxy.test.ts restore case skipped: ${skip}`);

describe.skipIf(!!skip)('a restore through the proxy (built CLI, real PostgreSQL)', () => {
  let cluster: PgCluster;

  beforeAll(async () => {
    [cluster] = await Promise.all([workerCluster(), ensureBuilt()]);
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
