import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeytarLike } from '../../src/context.js';
import { fixture } from '../support/fixtures.js';
import { runCli, TEST_NOW, type CliRun } from '../support/run-cli.js';
import { json, LoopbackServer } from '../support/loopback-server.js';
import { FakeKeychain, hangingKeychain, refusingKeychain } from '../support/fake-keychain.js';

/** Tokens the service accepts, each answering with its own key id so a test can tell which was used. */
const TOKENS = {
  login: 'svc_live_4c6f67696e0000000000000000000001',
  env: 'svc_live_456e760000000000000000000000000002',
  keychain: 'svc_live_4b6579636861696e0000000000000003',
  file: 'svc_live_46696c650000000000000000000000004',
  other: 'svc_live_4f746865720000000000000000000005',
} as const;
const REJECTED = 'svc_live_deadbeefdeadbeefdeadbeefdeadbeef';
const ALL_SECRETS = [...Object.values(TOKENS), REJECTED];

let server: LoopbackServer;
let home: string;
let configHome: string;
let baseUrl: string;
/** expiresAt the service reports for every token; undefined leaves the fixture's. */
let expiresAt: string | null | undefined;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-auth-'));
  configHome = join(home, 'xdg-config');
  expiresAt = undefined;
  server = await new LoopbackServer().start();
  baseUrl = server.baseUrl;
  server.otherwise((ex) => {
    const name = Object.entries(TOKENS).find(([, t]) => ex.headers.get('authorization') === `Bearer ${t}`)?.[0];
    if (ex.path !== '/api/v1/profile' || !name) return json(401, fixture('error-401'), { 'x-request-id': 'req_unauth_1' });
    const base = fixture('profile').profile;
    const profile = { ...base, apiKeyId: `key_${name}` };
    if (expiresAt === null) delete profile.expiresAt;
    else if (expiresAt) profile.expiresAt = expiresAt;
    return json(200, { profile });
  });
});

afterEach(async () => {
  await server.stop();
  rmSync(home, { recursive: true, force: true });
});

const credentialsFile = () => join(configHome, 'svc', 'credentials.json');
const configFile = () => join(configHome, 'svc', 'config.json');
const mode = (path: string) => statSync(path).mode & 0o777;
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

function writeCredentials(tokens: Record<string, string>, fileMode = 0o600): void {
  mkdirSync(dirname(credentialsFile()), { recursive: true, mode: 0o700 });
  writeFileSync(credentialsFile(), JSON.stringify({ tokens }), { mode: fileMode });
  chmodSync(credentialsFile(), fileMode);
}

interface SvcOptions {
  stdin?: string;
  keytar?: KeytarLike | null;
  env?: Record<string, string | undefined>;
}

/** Runs svc with a temp HOME and XDG_CONFIG_HOME; fails the test if any token reaches stdout or stderr. */
async function svc(args: string[], opts: SvcOptions = {}): Promise<CliRun> {
  const result = await runCli(args, {
    stdin: opts.stdin,
    keytar: opts.keytar === undefined ? null : opts.keytar,
    env: { HOME: home, XDG_CONFIG_HOME: configHome, ...opts.env },
  });
  for (const secret of ALL_SECRETS) {
    expect(result.stdout, 'stdout must never hold a token').not.toContain(secret);
    expect(result.stderr, 'stderr must never hold a token').not.toContain(secret);
  }
  return result;
}

const login = (opts: SvcOptions & { token?: string; extra?: string[] } = {}) =>
  svc(['auth', 'login', '--with-token', '--base-url', baseUrl, ...(opts.extra ?? [])], {
    stdin: opts.token ?? TOKENS.login,
    ...opts,
  });

describe('auth login --with-token', () => {
  it('checks the token with GET /profile before storing it in the keychain', async () => {
    const keychain = new FakeKeychain();
    let requestsWhenStored = -1;
    keychain.onSet = () => {
      requestsWhenStored = server.exchanges.length;
    };

    const r = await login({ keytar: keychain, extra: ['--verbose'] });

    expect(r.code).toBe(0);
    expect(requestsWhenStored).toBe(1);
    expect(server.exchanges.map((e) => `${e.method} ${e.path}`)).toEqual(['GET /api/v1/profile']);
    expect(server.exchanges[0]!.headers.get('authorization')).toBe(`Bearer ${TOKENS.login}`);
    expect(keychain.get(baseUrl)).toBe(TOKENS.login);
    expect(existsSync(credentialsFile())).toBe(false);
    expect(r.stderr).toContain('token stored in the keychain');
    expect(r.stdout).toContain('key_login');
    expect(r.stderr).toMatch(/^http GET \/api\/v1\/profile 200/m);
    expect(r.stderr).not.toContain('warning');
  });

  it.each([
    { label: 'a keychain', keytar: () => new FakeKeychain() },
    { label: 'no keychain', keytar: () => null },
  ])('a rejected token (401) is stored nowhere and exits 3 ($label)', async ({ keytar }) => {
    const keychain = keytar();

    const r = await login({ token: REJECTED, keytar: keychain });

    expect(r.code).toBe(3);
    expect(server.exchanges).toHaveLength(1);
    expect(r.stderr).toContain('req_unauth_1');
    expect(r.stdout).toBe('');
    if (keychain) {
      expect(keychain.entries.size).toBe(0);
      expect(keychain.calls.filter((c) => c.startsWith('set'))).toEqual([]);
    }
    expect(existsSync(credentialsFile())).toBe(false);
    expect(existsSync(configFile())).toBe(false);
  });

  // Issue 11: C1 controls (which undici would send as Latin-1 bytes) are control characters too.
  it.each([
    ['ESC [2J', `${TOKENS.login}\u001b[2J`],
    ['a C1 control (CSI)', `${TOKENS.login}\u009b`],
    ['CR LF inside it', `${TOKENS.login.slice(0, 12)}\r\n${TOKENS.login.slice(12)}`],
  ])('a token with %s is refused before it is sent or stored (exit 2)', async (_what, token) => {
    const r = await login({ token, keytar: null });

    expect(r.code).toBe(2);
    expect(r.stderr).toContain('The token contains spaces or control characters');
    expect(server.exchanges).toEqual([]);
    expect(existsSync(credentialsFile())).toBe(false);
  });

  it('without a keychain, stores the token in a 0600 credentials file and says so on stderr', async () => {
    const r = await login({ token: `${TOKENS.login}\n`, keytar: null });

    expect(r.code).toBe(0);
    expect(mode(credentialsFile())).toBe(0o600);
    expect(mode(dirname(credentialsFile()))).toBe(0o700);
    expect(readJson(credentialsFile())).toEqual({ tokens: { [baseUrl]: TOKENS.login } });
    expect(r.stderr).toContain(credentialsFile());
    expect(r.stderr).toContain('0600');
    expect(r.stderr).toContain('token stored in the file');
  });

  it('without XDG_CONFIG_HOME the file goes to ~/.config/svc', async () => {
    const r = await login({ env: { XDG_CONFIG_HOME: undefined } });

    expect(r.code).toBe(0);
    const path = join(home, '.config', 'svc', 'credentials.json');
    expect(mode(path)).toBe(0o600);
    expect(readJson(path).tokens[baseUrl]).toBe(TOKENS.login);
  });

  it("keeps other services' tokens and tightens a loose file to 0600", async () => {
    writeCredentials({ 'https://backup.example.com': TOKENS.other }, 0o644);

    const r = await login({ keytar: null });

    expect(r.code).toBe(0);
    expect(mode(credentialsFile())).toBe(0o600);
    expect(readJson(credentialsFile()).tokens).toEqual({ 'https://backup.example.com': TOKENS.other, [baseUrl]: TOKENS.login });
  });

  it('a keychain that refuses falls back to the file with a warning', async () => {
    const r = await login({ keytar: refusingKeychain });

    expect(r.code).toBe(0);
    expect(readJson(credentialsFile()).tokens[baseUrl]).toBe(TOKENS.login);
    // One line naming the cause in a few words, not the binding's raw D-Bus text (cli-contract 4, v4).
    expect(r.stderr).toMatch(
      /^warning: No usable keychain \(no D-Bus session bus\): the token is stored in \S+ with mode 0600; for the OS keychain on Linux, run a Secret Service \(gnome-keyring, KeePassXC\) in your session\.$/m,
    );
    expect(r.stderr).not.toContain('autolaunch');
  });

  it('storing in the keychain removes an older copy from the file', async () => {
    writeCredentials({ [baseUrl]: TOKENS.file });
    const keychain = new FakeKeychain();

    const r = await login({ keytar: keychain });

    expect(r.code).toBe(0);
    expect(keychain.get(baseUrl)).toBe(TOKENS.login);
    expect(existsSync(credentialsFile())).toBe(false);
  });

  it('--base-url is saved to config.json and later commands use it', async () => {
    const r = await login({ keytar: null });
    expect(r.code).toBe(0);
    expect(readJson(configFile())).toEqual({ profiles: { default: { baseUrl } } });

    const status = await svc(['auth', 'status'], { keytar: null });

    expect(status.code).toBe(0);
    expect(status.stdout).toContain(baseUrl);
    expect(server.exchanges).toHaveLength(2);
  });

  // Contract v2: the login remembers its service whichever way the base URL was given, so the
  // next shell without SVC_BASE_URL reaches the same service.
  it('a base URL from SVC_BASE_URL is remembered too: the next run without it reaches the same service', async () => {
    const r = await svc(['auth', 'login', '--with-token'], { stdin: TOKENS.login, env: { SVC_BASE_URL: baseUrl } });

    expect(r.code).toBe(0);
    expect(readJson(configFile())).toEqual({ profiles: { default: { baseUrl } } });
    const status = await svc(['auth', 'status', '--json'], { keytar: null });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ baseUrl, profile: { apiKeyId: 'key_login' } });
  });

  it.each([
    ['as an argument', ['auth', 'login', TOKENS.login]],
    ['after --with-token', ['auth', 'login', '--with-token', TOKENS.login]],
    ['as a --token option', ['auth', 'login', '--token', TOKENS.login]],
  ])('a token on the command line (%s) is a usage error: exit 2, nothing sent or stored', async (_label, argv) => {
    const keychain = new FakeKeychain();

    const r = await svc([...argv, '--base-url', baseUrl], { keytar: keychain, stdin: '' });

    expect(r.code).toBe(2);
    expect(server.exchanges).toEqual([]);
    expect(keychain.entries.size).toBe(0);
    expect(existsSync(credentialsFile())).toBe(false);
  });

  it('empty stdin is a usage error and sends nothing', async () => {
    const r = await login({ token: ' \n' });

    expect(r.code).toBe(2);
    expect(r.stderr).toContain('empty');
    expect(server.exchanges).toEqual([]);
  });

  it('without --with-token and without a terminal it explains how to pipe the token in', async () => {
    const r = await svc(['auth', 'login', '--base-url', baseUrl]);

    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--with-token');
    expect(server.exchanges).toEqual([]);
  });

  it('Ctrl-C at the hidden token prompt is an interrupt (exit 130): nothing is sent or stored', async () => {
    const r = await runCli(['auth', 'login', '--base-url', baseUrl], {
      tty: true,
      prompter: { secret: async () => undefined },
      env: { HOME: home, XDG_CONFIG_HOME: configHome },
    });

    expect(r.code).toBe(130);
    expect(r.stderr).toContain('Login cancelled; nothing was stored.');
    expect(server.exchanges).toEqual([]);
    expect(existsSync(credentialsFile())).toBe(false);
  });

  it('a keychain that never answers: after the 3 s deadline the token goes to the file, with a warning', async () => {
    const r = await login({ keytar: hangingKeychain });

    expect(r.code).toBe(0);
    expect(readJson(credentialsFile()).tokens[baseUrl]).toBe(TOKENS.login);
    expect(mode(credentialsFile())).toBe(0o600);
    expect(r.stderr).toMatch(/warning: .*did not answer within 3s/);
    expect(r.stderr).toContain('token stored in the file');
  });
});

describe('auth status', () => {
  function stores() {
    const keychain = new FakeKeychain();
    keychain.put(baseUrl, TOKENS.keychain);
    writeCredentials({ [baseUrl]: TOKENS.file });
    return keychain;
  }

  it('SVC_API_KEY wins over keychain and file', async () => {
    const r = await svc(['auth', 'status', '--base-url', baseUrl], { keytar: stores(), env: { SVC_API_KEY: TOKENS.env } });

    expect(r.code).toBe(0);
    expect(server.exchanges.map((e) => e.headers.get('authorization'))).toEqual([`Bearer ${TOKENS.env}`]);
    expect(r.stdout).toMatch(/token source:\s+SVC_API_KEY environment variable/);
    expect(r.stdout).toMatch(/api key id:\s+key_env/);
  });

  it('the keychain wins over the file', async () => {
    const r = await svc(['auth', 'status', '--base-url', baseUrl], { keytar: stores() });

    expect(r.code).toBe(0);
    expect(server.exchanges.map((e) => e.headers.get('authorization'))).toEqual([`Bearer ${TOKENS.keychain}`]);
    expect(r.stdout).toMatch(/token source:\s+OS keychain/);
    expect(r.stdout).toMatch(/api key id:\s+key_keychain/);
  });

  it.each([
    { label: 'no keychain', keytar: () => null },
    { label: 'an empty keychain', keytar: () => new FakeKeychain() },
  ])('the file is used with $label', async ({ keytar }) => {
    writeCredentials({ [baseUrl]: TOKENS.file });

    const r = await svc(['auth', 'status', '--base-url', baseUrl], { keytar: keytar() });

    expect(r.code).toBe(0);
    expect(server.exchanges.map((e) => e.headers.get('authorization'))).toEqual([`Bearer ${TOKENS.file}`]);
    expect(r.stdout).toMatch(/token source:\s+credentials file/);
    expect(r.stderr).toBe('');
  });

  it('shows key id, client kind, organization, scopes and expiry, and no warning for a distant expiry', async () => {
    const r = await svc(['auth', 'status', '--base-url', baseUrl], { keytar: stores() });

    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/base url:\s+http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stdout).toMatch(/client kind:\s+cli/);
    expect(r.stdout).toMatch(/organization:\s+acme \(org_acme\)/);
    expect(r.stdout).toContain('databases:read, destinations:read, backups:trigger, restores:read, restores:write, evidence:read');
    expect(r.stdout).toContain('2027-02-01T00:00:00Z');
    expect(r.stderr).toBe('');
  });

  it('--json reports the source and the profile', async () => {
    const r = await svc(['auth', 'status', '--json', '--base-url', baseUrl], { keytar: stores() });

    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      profileName: 'default',
      baseUrl,
      source: 'keychain',
      profile: { ...fixture('profile').profile, apiKeyId: 'key_keychain' },
    });
  });

  it('warns on stderr when the token expires in under 7 days', async () => {
    expiresAt = new Date(TEST_NOW.getTime() + 3 * 86_400_000).toISOString();

    const r = await svc(['auth', 'status', '--base-url', baseUrl], { env: { SVC_API_KEY: TOKENS.env } });

    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: The token expires in 72h/m);
    expect(r.stderr).toContain(expiresAt);
  });

  it.each([
    ['8 days away', () => new Date(TEST_NOW.getTime() + 8 * 86_400_000).toISOString()],
    ['no expiry', () => null],
  ])('no expiry warning with %s', async (_label, value) => {
    expiresAt = value();

    const r = await svc(['auth', 'status', '--base-url', baseUrl], { env: { SVC_API_KEY: TOKENS.env } });

    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('not logged in: exit 3 and no request', async () => {
    const r = await svc(['auth', 'status', '--base-url', baseUrl], { keytar: new FakeKeychain() });

    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Not logged in');
    expect(r.stderr).toContain('svc auth login');
    expect(server.exchanges).toEqual([]);
  });

  it('a stored token the service now rejects: exit 3', async () => {
    writeCredentials({ [baseUrl]: REJECTED });

    const r = await svc(['auth', 'status', '--base-url', baseUrl]);

    expect(r.code).toBe(3);
    expect(server.exchanges).toHaveLength(1);
  });

  it('a keychain that never answers: after the 3 s deadline the file is read, with a warning', async () => {
    writeCredentials({ [baseUrl]: TOKENS.file });

    const r = await svc(['auth', 'status', '--base-url', baseUrl], { keytar: hangingKeychain });

    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/token source:\s+credentials file/);
    expect(r.stderr).toMatch(/warning: Keychain unavailable \(the keychain did not answer within 3s\)/);
    // The keychain is asked once, not once for the source and again for the request.
    expect(r.stderr.match(/warning:/g)).toHaveLength(1);
  });
});

describe('auth logout', () => {
  it('removes the token from both keychain and file, leaving other services alone', async () => {
    const keychain = new FakeKeychain();
    keychain.put(baseUrl, TOKENS.keychain);
    keychain.put('https://backup.example.com', TOKENS.other);
    writeCredentials({ [baseUrl]: TOKENS.file, 'https://backup.example.com': TOKENS.other });

    const r = await svc(['auth', 'logout', '--base-url', baseUrl], { keytar: keychain });

    expect(r.code).toBe(0);
    expect(r.stderr).toContain('from the keychain and file');
    expect(keychain.get(baseUrl)).toBeUndefined();
    expect(keychain.get('https://backup.example.com')).toBe(TOKENS.other);
    expect(readJson(credentialsFile())).toEqual({ tokens: { 'https://backup.example.com': TOKENS.other } });
    expect(mode(credentialsFile())).toBe(0o600);
    expect(server.exchanges).toEqual([]);

    const status = await svc(['auth', 'status', '--base-url', baseUrl], { keytar: keychain });
    expect(status.code).toBe(3);
  });

  it('deletes the credentials file once it holds no token', async () => {
    writeCredentials({ [baseUrl]: TOKENS.file });

    const r = await svc(['auth', 'logout', '--base-url', baseUrl]);

    expect(r.code).toBe(0);
    expect(existsSync(credentialsFile())).toBe(false);
  });

  it('with nothing stored it says so and succeeds', async () => {
    const r = await svc(['auth', 'logout', '--base-url', baseUrl], { keytar: new FakeKeychain() });

    expect(r.code).toBe(0);
    expect(r.stderr).toContain('No stored token');
  });

  it('warns that SVC_API_KEY still takes effect', async () => {
    const r = await svc(['auth', 'logout', '--base-url', baseUrl], { env: { SVC_API_KEY: TOKENS.env } });

    expect(r.code).toBe(0);
    expect(r.stderr).toContain('SVC_API_KEY is still set');
  });

  it('login, status, logout, status round trip through the file', async () => {
    expect((await login()).code).toBe(0);
    const status = await svc(['auth', 'status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).source).toBe('file');
    expect((await svc(['auth', 'logout'])).code).toBe(0);
    expect((await svc(['auth', 'status'])).code).toBe(3);
  });
});
