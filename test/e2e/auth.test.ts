/**
 * auth login / status / logout through the built bin/svc, with a private HOME and XDG_CONFIG_HOME and
 * no usable keychain (helpers.cleanEnv points D-Bus nowhere; keytar, when installed, fails at once),
 * so the token lands in the 0600 credentials file. One login/logout cycle per output mode, in order.
 */
import { readFileSync, statSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cleanupE2e, ensureBuilt, errorEnvelope, startE2eSandbox, svc, tempDir, type E2eSandbox } from './helpers.js';

let sb: E2eSandbox;

beforeAll(async () => {
  await ensureBuilt();
  sb = await startE2eSandbox();
});

afterAll(async () => {
  await sb?.stop();
  cleanupE2e();
});

/** One line: a short cause (never the binding's raw D-Bus text), where the token went, how to get a keychain. */
const NO_KEYCHAIN =
  /^warning: No usable keychain \((no D-Bus session bus|no Secret Service is running|no keychain binding is installed|SVC_KEYCHAIN=file)\): the token is stored in (\S+credentials\.json) with mode 0600; for the OS keychain on Linux, run a Secret Service \(gnome-keyring, KeePassXC\) in your session\.$/m;

describe('human output: login, status, logout', () => {
  const home = tempDir('auth-human');
  const env = () => cleanEnv({ HOME: home, SVC_BASE_URL: sb.baseUrl });
  const credentials = join(home, '.config', 'svc', 'credentials.json');

  it('login --with-token verifies the token, then stores it in a 0600 file where there is no keychain', async () => {
    const r = await svc(['auth', 'login', '--with-token'], { env: env(), input: `${sb.token('full')}\n` });
    expect(r.code).toBe(0);
    // The outcome is said on stderr; stdout is the profile's data.
    expect(r.stderr).toContain(`Logged in to ${sb.baseUrl} as acme (key key_cli_01); token stored in the file.`);
    expect(r.stdout).not.toContain('Logged in');
    expect(r.stdout).toMatch(/^scopes: +databases:read, /m);
    expect(r.stderr).toMatch(NO_KEYCHAIN);
    expect(NO_KEYCHAIN.exec(r.stderr)?.[2]).toBe(credentials);
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(credentials, 'utf8'))).toEqual({ tokens: { [sb.baseUrl]: sb.token('full') } });
  });

  it('status names the file as the source, and the key, organization and scopes; never the token', async () => {
    const r = await svc(['auth', 'status'], { env: env() });
    expect(r.code).toBe(0);
    // No session bus is the normal headless case: reading the file says nothing about the keychain.
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^token source: +credentials file \(0600\)$/m);
    expect(r.stdout).toMatch(/^api key id: +key_cli_01$/m);
    expect(r.stdout).toMatch(/^organization: +acme \(org_acme\)$/m);
  });

  it('logout removes it; status is then exit 3', async () => {
    const r = await svc(['auth', 'logout'], { env: env() });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toBe(`Removed the token for ${sb.baseUrl} from the file.\n`);
    expect(existsSync(credentials)).toBe(false);

    const status = await svc(['auth', 'status'], { env: env() });
    expect(status).toMatchObject({ code: 3, stdout: '' });
    expect(status.stderr).toContain(`error: Not logged in to ${sb.baseUrl}.`);
  });
});

describe('--json: login with --base-url (remembered in config.json), status, logout', () => {
  const home = tempDir('auth-json');
  // No SVC_BASE_URL: after login the base URL comes from config.json.
  const env = () => cleanEnv({ HOME: home });

  it('login --with-token --base-url --json', async () => {
    const r = await svc(['auth', 'login', '--with-token', '--base-url', sb.baseUrl, '--json'], { env: env(), input: sb.token('read-only') });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ baseUrl: sb.baseUrl, storedIn: 'file', profile: { apiKeyId: 'key_agent_ro', scopes: ['databases:read'] } });
    // Contract v2: config.json holds profiles; the login was saved as the default one.
    expect(JSON.parse(readFileSync(join(home, '.config', 'svc', 'config.json'), 'utf8'))).toEqual({ profiles: { default: { baseUrl: sb.baseUrl } } });
  });

  it('status --json', async () => {
    const r = await svc(['auth', 'status', '--json'], { env: env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ baseUrl: sb.baseUrl, source: 'file', profile: { clientKind: 'mcp_external' } });
  });

  it('logout --json', async () => {
    const r = await svc(['auth', 'logout', '--json'], { env: env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ profileName: 'default', baseUrl: sb.baseUrl, removedFrom: ['file'] });
  });
});

describe('a token piped in without --with-token (cli-contract 4, v5)', () => {
  it('is read as the token: verified, stored, logged in', async () => {
    const home = tempDir('auth-piped');
    const r = await svc(['auth', 'login', '--base-url', sb.baseUrl], { env: cleanEnv({ HOME: home }), input: `${sb.token('full')}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Logged in to ${sb.baseUrl} as acme (key key_cli_01)`);
    expect(r.stderr).not.toContain('No terminal');
  });

  it('empty standard input: the hint is the whole command, with the --profile and --base-url given', async () => {
    const r = await svc(['auth', 'login', '--profile', 'prod', '--base-url', sb.baseUrl], { env: cleanEnv({ HOME: tempDir('auth-empty') }), input: '' });
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toContain('The token is empty; nothing was stored.');
    expect(r.stderr).toContain(`printf %s "$TOKEN" | svc auth login --profile prod --base-url ${sb.baseUrl} --with-token`);
  });

  it('the usage line shows no [token] argument, which is always refused', async () => {
    const r = await svc(['auth', 'login', '--help'], { env: cleanEnv() });
    expect(r.stdout).toMatch(/^Usage: svc auth login \[options\]$/m);
    expect(r.stdout).not.toContain('[token]');
  });
});

describe('refusals', () => {
  it('2: a token on the command line is refused, and not echoed', async () => {
    const token = sb.token('full');
    const r = await svc(['auth', 'login', token], { env: cleanEnv({ SVC_BASE_URL: sb.baseUrl }) });
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toContain('A token is never accepted on the command line');
  });

  it('3: a revoked token is not stored', async () => {
    const home = tempDir('auth-revoked');
    const r = await svc(['auth', 'login', '--with-token', '--json'], { env: cleanEnv({ HOME: home, SVC_BASE_URL: sb.baseUrl }), input: sb.token('revoked') });
    expect(r).toMatchObject({ code: 3, stdout: '' });
    expect(errorEnvelope(r.stderr)).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(existsSync(join(home, '.config', 'svc'))).toBe(false);
  });

  // Exit 1 is "unexpected error, including a response outside the contract". The sandbox cannot answer
  // outside the contract (it checks every body against the client's own schemas and never redirects),
  // so the reachable exit-1 path is a local one: a credentials file that is not JSON.
  it('1: a corrupt credentials file', async () => {
    const home = tempDir('auth-corrupt');
    mkdirSync(join(home, '.config', 'svc'), { recursive: true });
    writeFileSync(join(home, '.config', 'svc', 'credentials.json'), '{ not json', { mode: 0o600 });
    const r = await svc(['databases', 'list'], { env: cleanEnv({ HOME: home, SVC_BASE_URL: sb.baseUrl }) });
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toContain(`error: ${join(home, '.config', 'svc', 'credentials.json')} is not a JSON object.`);
    expect(r.stderr).toContain('Fix or delete the file');
  });
});
