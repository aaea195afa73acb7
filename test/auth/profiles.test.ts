/**
 * Profiles and a login that remembers (cli-contract 2): saved logins per profile, --profile and
 * SVC_PROFILE, auth status --all, logout of one profile, the config directory's rules (absolute
 * XDG_CONFIG_HOME only, no silent overwrite of a corrupt file, a warning for readable credentials)
 * and writes that concurrent processes cannot lose.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, cleanupBuiltCli, ensureBuilt, spawnSvc } from '../support/built-cli.js';
import { FakeKeychain } from '../support/fake-keychain.js';
import { fixture } from '../support/fixtures.js';
import { json, LoopbackServer } from '../support/loopback-server.js';
import { runCli, type CliRun } from '../support/run-cli.js';
import { expectNoSecretsLeft } from '../support/secret-scan.js';

const TOKENS = { prod: 'svc_live_70726f64000000000000000000000001', staging: 'svc_live_7374616700000000000000000000002' };
const REVOKED = 'svc_live_7265766f6b6564000000000000000003';
const SECRETS = [...Object.values(TOKENS), REVOKED];

/** A service that knows `tokens` and answers getProfile with a key id naming the token. */
async function service(tokens: Record<string, string>): Promise<LoopbackServer> {
  const server = await new LoopbackServer().start();
  server.otherwise((ex) => {
    const name = Object.entries(tokens).find(([, t]) => ex.headers.get('authorization') === `Bearer ${t}`)?.[0];
    if (!name) return json(401, fixture('error-401'));
    return json(200, { profile: { ...fixture('profile').profile, apiKeyId: `key_${name}` } });
  });
  return server;
}

let home: string;
let prod: LoopbackServer;
let staging: LoopbackServer;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-profiles-'));
  [prod, staging] = await Promise.all([service({ prod: TOKENS.prod }), service({ staging: TOKENS.staging })]);
});

afterEach(async () => {
  await Promise.all([prod.stop(), staging.stop()]);
  rmSync(home, { recursive: true, force: true });
});

const configDir = () => join(home, '.config', 'svc');

async function svc(args: string[], opts: { stdin?: string; env?: Record<string, string>; keytar?: FakeKeychain | null } = {}): Promise<CliRun> {
  const r = await runCli(args, { stdin: opts.stdin, keytar: opts.keytar ?? null, env: { HOME: home, ...opts.env } });
  for (const secret of SECRETS) expect(r.stdout + r.stderr, 'no output may hold a token').not.toContain(secret);
  return r;
}

describe('profiles', () => {
  it('each profile remembers its own service and token; --profile and SVC_PROFILE pick one', async () => {
    expect((await svc(['auth', 'login', '--with-token', '--profile', 'prod', '--base-url', prod.baseUrl], { stdin: TOKENS.prod })).code).toBe(0);
    expect((await svc(['auth', 'login', '--with-token', '--profile', 'staging', '--base-url', staging.baseUrl], { stdin: TOKENS.staging })).code).toBe(0);

    const viaFlag = await svc(['--profile', 'prod', 'auth', 'status', '--json']);
    expect(JSON.parse(viaFlag.stdout)).toMatchObject({ profileName: 'prod', baseUrl: prod.baseUrl, profile: { apiKeyId: 'key_prod' } });
    const viaEnv = await svc(['profile', '--json'], { env: { SVC_PROFILE: 'staging' } });
    expect(JSON.parse(viaEnv.stdout).profile.apiKeyId).toBe('key_staging');
    // The human status names the profile in use.
    expect((await svc(['auth', 'status', '--profile', 'staging'])).stdout).toMatch(/^profile: +staging$/m);

    // No default profile was created, so a bare command says how to make one.
    const bare = await svc(['profile']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('No service base URL is configured.');
  });

  it('SVC_BASE_URL overrides the profile, and the profile token is not sent to that other service', async () => {
    await svc(['auth', 'login', '--with-token', '--profile', 'prod', '--base-url', prod.baseUrl], { stdin: TOKENS.prod });
    const r = await svc(['profile'], { env: { SVC_PROFILE: 'prod', SVC_BASE_URL: staging.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`No API token is configured for ${staging.baseUrl}, profile prod.`);
    expect(staging.exchanges).toHaveLength(0);
  });

  it('auth status --all lists every profile with its service, token source and whether it is still accepted', async () => {
    const keychain = new FakeKeychain();
    await svc(['auth', 'login', '--with-token', '--profile', 'prod', '--base-url', prod.baseUrl], { stdin: TOKENS.prod, keytar: keychain });
    await svc(['auth', 'login', '--with-token', '--profile', 'staging', '--base-url', staging.baseUrl], { stdin: TOKENS.staging });
    // A token revoked since login: the service now answers 401.
    writeFileSync(join(configDir(), 'credentials.json'), JSON.stringify({ tokens: { [`staging@${staging.baseUrl}`]: REVOKED } }), { mode: 0o600 });

    const human = await svc(['auth', 'status', '--all'], { keytar: keychain });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^prod +${prod.baseUrl.replace(/\./g, '\\.')} +keychain +yes +acme \\(key key_prod\\)$`, 'm'));
    expect(human.stdout).toMatch(/^staging +\S+ +file \(0600\) +no +rejected: log in again$/m);

    const doc = JSON.parse((await svc(['auth', 'status', '--all', '--json'], { keytar: keychain })).stdout);
    expect(doc.profiles).toEqual([
      { name: 'prod', baseUrl: prod.baseUrl, tokenSource: 'keychain', accepted: true, detail: 'acme (key key_prod)' },
      { name: 'staging', baseUrl: staging.baseUrl, tokenSource: 'file', accepted: false, detail: 'rejected: log in again' },
    ]);
  });

  it('auth logout --profile removes that login only', async () => {
    await svc(['auth', 'login', '--with-token', '--profile', 'prod', '--base-url', prod.baseUrl], { stdin: TOKENS.prod });
    await svc(['auth', 'login', '--with-token', '--profile', 'staging', '--base-url', staging.baseUrl], { stdin: TOKENS.staging });
    const out = await svc(['auth', 'logout', '--profile', 'staging']);
    expect(out.stderr).toBe(`Removed the token for ${staging.baseUrl} (profile staging) from the file.\n`);
    expect((await svc(['auth', 'status', '--profile', 'staging'])).code).toBe(3);
    expect((await svc(['auth', 'status', '--profile', 'prod'])).code).toBe(0);
  });

  it.each(['a b', 'x'.repeat(65), '../etc', 'prod!'])('a profile name %j is a usage error before anything is read or sent', async (name) => {
    const r = await svc(['--profile', name, 'profile'], { env: { SVC_BASE_URL: prod.baseUrl, SVC_API_KEY: TOKENS.prod } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Invalid profile name');
    expect(prod.exchanges).toHaveLength(0);
  });
});

describe("profile names that are an object's own machinery (issue 17, item 8)", () => {
  it.each(['__proto__', 'constructor', 'toString'])('--profile %s: login saves it, status reads it, --all lists it, logout removes its token', async (name) => {
    const login = await svc(['auth', 'login', '--with-token', '--profile', name, '--base-url', prod.baseUrl], { stdin: TOKENS.prod });
    expect(login.code, login.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(configDir(), 'config.json'), 'utf8'));
    expect(Object.getOwnPropertyNames(config.profiles)).toEqual([name]);
    expect(Object.getOwnPropertyDescriptor(config.profiles, name)?.value).toEqual({ baseUrl: prod.baseUrl });
    const credentials = JSON.parse(readFileSync(join(configDir(), 'credentials.json'), 'utf8'));
    expect(Object.getOwnPropertyNames(credentials.tokens)).toEqual([`${name}@${prod.baseUrl}`]);

    // A new shell, no SVC_BASE_URL: the profile alone reaches the service with its token.
    const status = await svc(['--profile', name, 'auth', 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ profileName: name, baseUrl: prod.baseUrl, profile: { apiKeyId: 'key_prod' } });
    const all = JSON.parse((await svc(['auth', 'status', '--all', '--json'])).stdout);
    expect(all.profiles).toEqual([{ name, baseUrl: prod.baseUrl, tokenSource: 'file', accepted: true, detail: 'acme (key key_prod)' }]);

    // Another profile saved beside it keeps both.
    await svc(['auth', 'login', '--with-token', '--profile', 'staging', '--base-url', staging.baseUrl], { stdin: TOKENS.staging });
    expect(Object.keys(JSON.parse(readFileSync(join(configDir(), 'config.json'), 'utf8')).profiles).sort()).toEqual([name, 'staging'].sort());

    // Logout removes the token; the profile keeps its service, as every profile does.
    expect((await svc(['auth', 'logout', '--profile', name])).code).toBe(0);
    expect(Object.getOwnPropertyNames(JSON.parse(readFileSync(join(configDir(), 'credentials.json'), 'utf8')).tokens)).toEqual([`staging@${staging.baseUrl}`]);
    const after = await svc(['--profile', name, 'profile']);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain(`No API token is configured for ${prod.baseUrl}, profile ${name}.`);
  });

  it.each(['constructor', 'toString', '__proto__'])('--profile %s never saved: no base URL, exit 2, not a crash', async (name) => {
    const r = await svc(['--profile', name, 'databases', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`No service base URL is configured for profile "${name}".`);
  });
});

describe('the config directory', () => {
  it('a relative XDG_CONFIG_HOME is ignored: the login goes to ~/.config/svc', async () => {
    const r = await svc(['auth', 'login', '--with-token', '--base-url', prod.baseUrl], { stdin: TOKENS.prod, env: { XDG_CONFIG_HOME: 'relative/config' } });
    expect(r.code).toBe(0);
    expect(existsSync(join(configDir(), 'credentials.json'))).toBe(true);
    expect(existsSync(join(process.cwd(), 'relative'))).toBe(false);
  });

  it('auth status warns when the credentials file or its directory can be read by others', async () => {
    await svc(['auth', 'login', '--with-token', '--base-url', prod.baseUrl], { stdin: TOKENS.prod });
    chmodSync(join(configDir(), 'credentials.json'), 0o644);
    chmodSync(configDir(), 0o755);
    const r = await svc(['auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`credentials.json can be read by other users (mode 644): run chmod 600 ${join(configDir(), 'credentials.json')}`);
    expect(r.stderr).toContain(`can be listed by other users (mode 755): run chmod 700 ${configDir()}`);
  });

  it.each(['config.json', 'credentials.json'])('a corrupt %s is exit 1 with its path and the repair, and is never overwritten', async (file) => {
    mkdirSync(configDir(), { recursive: true, mode: 0o700 });
    const path = join(configDir(), file);
    writeFileSync(path, '{"profiles": {', { mode: 0o600 });
    const r = await svc(['auth', 'login', '--with-token', '--base-url', prod.baseUrl], { stdin: TOKENS.prod });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: ${path} is not a JSON object.`);
    expect(r.stderr).toContain(`mv ${path} ${path}.broken && svc auth login`);
    expect(readFileSync(path, 'utf8')).toBe('{"profiles": {');
  });
});

describe('concurrent logins (real processes)', () => {
  const servers: LoopbackServer[] = [];
  const tokens = Array.from({ length: 8 }, (_, i) => `svc_live_636f6e63757272656e74000000000${String(i).padStart(3, '0')}`);

  beforeAll(async () => {
    await ensureBuilt();
    for (const token of tokens) servers.push(await service({ [`n${servers.length}`]: token }));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    cleanupBuiltCli();
  });

  // Issue 11, defect 8: without the lock, read-modify-write of config.json and credentials.json by
  // 8 processes at once loses updates; several rounds make a lost update all but certain.
  it('8 parallel logins to 8 base URLs, 3 rounds: every token in the 0600 credentials file, every profile in config.json', async () => {
    for (let round = 1; round <= 3; round++) {
      // One HOME for the 8 processes of a round; no keychain (SVC_KEYCHAIN=file as well as the failing D-Bus address).
      const env = cleanEnv({ SVC_KEYCHAIN: 'file' });
      const dir = join(env.XDG_CONFIG_HOME!, 'svc');
      const runs = await Promise.all(
        servers.map((s, i) => spawnSvc(['auth', 'login', '--with-token', '--profile', `p${i}`, '--base-url', s.baseUrl], { env, input: tokens[i] })),
      );
      runs.forEach((r, i) => expect(r.exitCode, `round ${round}, login ${i}: ${String(r.stderr)}`).toBe(0));

      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      expect(config, `round ${round}`).toEqual({ profiles: Object.fromEntries(servers.map((s, i) => [`p${i}`, { baseUrl: s.baseUrl }])) });
      const credentials = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
      expect(credentials, `round ${round}`).toEqual({ tokens: Object.fromEntries(servers.map((s, i) => [`p${i}@${s.baseUrl}`, tokens[i]])) });
      expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
      // No lock or temp file left behind.
      expect(readdirSync(dir).sort()).toEqual(['config.json', 'credentials.json']);

      const checks = round === 3 ? await Promise.all(servers.map((_, i) => spawnSvc(['profile', '--json', '--profile', `p${i}`], { env }))) : [];
      checks.forEach((r, i) => expect(JSON.parse(String(r.stdout)).profile.apiKeyId).toBe(`key_n${i}`));
      await expectNoSecretsLeft(
        {
          texts: [...runs, ...checks].flatMap((r) => [String(r.stdout), String(r.stderr)]),
          paths: [env.HOME!, env.TMPDIR!],
          allowed: (f) => f === join(dir, 'credentials.json'),
        },
        { tokens },
      );
    }
  }, 120_000);
});
