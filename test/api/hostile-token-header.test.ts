/**
 * Issue 11, defect 9 (tokens): the Authorization header is built from user input, so a token with
 * CR/LF or any other control character (C0, DEL, C1) is refused before anything is sent
 * (cli-contract 6): exit 3, and the service receives no request at all. That holds for SVC_API_KEY
 * and for a token stored in the credentials file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, spawnSvc } from '../support/built-cli.js';
import { hostileService } from '../support/hostile-cli.js';
import { fixture } from '../support/fixtures.js';
import { json } from '../support/loopback-server.js';
import { expectNoSecretsLeft } from '../support/secret-scan.js';

const TOKEN = 'svc_live_746f6b656e686561646572000000000e6f';

const hostile = hostileService();

/** A service that would accept anything: the only way to get exit 3 here is to send nothing. */
function acceptingService(): void {
  hostile.api('GET', '/profile', json(200, fixture('profile')));
}

const BAD = [
  ['CR LF and an injected header', `${TOKEN}\r\nX-Injected: yes`],
  ['a trailing LF', `${TOKEN}\n`],
  ['ESC [2J', `${TOKEN}\u001b[2J`],
  ['BEL', `svc_live_\u0007${TOKEN.slice(9)}`],
  ['DEL', `${TOKEN}\u007f`],
  ['a C1 control (CSI)', `${TOKEN}\u009b`],
  ['a C1 control (NEL)', `${TOKEN.slice(0, 20)}\u0085${TOKEN.slice(20)}`],
] as const;

/** Connections the service had accepted before the case ran. */
let connectionsBefore = 0;
beforeEach(() => {
  connectionsBefore = hostile.loopback.connections;
});

async function expectRefused(r: { exitCode?: number; stdout: unknown; stderr: unknown }, env: Record<string, string>, tokens: string[]) {
  const [stdout, stderr] = [String(r.stdout), String(r.stderr)];
  expect(r.exitCode).toBe(3);
  expect(hostile.exchanges).toEqual([]);
  expect(hostile.loopback.connections - connectionsBefore, 'not even a connection').toBe(0);
  expect(stdout).toBe('');
  expect(stderr).toContain('The API token contains spaces or control characters, so it cannot be sent; nothing was sent.');
  await expectNoSecretsLeft({ texts: [stdout, stderr], paths: [env.HOME!, env.TMPDIR!], allowed: (f) => f.endsWith('credentials.json') }, { tokens });
}

describe('a token with control characters is refused before anything is sent', () => {
  it.each(BAD)('SVC_API_KEY with %s: exit 3, no request', async (_what, bad) => {
    acceptingService();
    const env = cleanEnv({ SVC_API_KEY: bad, SVC_BASE_URL: hostile.baseUrl });
    const r = await spawnSvc(['profile'], { env });
    await expectRefused(r, env, [bad, TOKEN]);
  });

  it.each(BAD)('a stored token (credentials file) with %s: exit 3, no request', async (_what, bad) => {
    acceptingService();
    const env = cleanEnv({ SVC_BASE_URL: hostile.baseUrl, SVC_KEYCHAIN: 'file' });
    const dir = join(env.XDG_CONFIG_HOME!, 'svc');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The default profile's token is filed under its bare base URL (token-store.ts tokenKey).
    writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ tokens: { [hostile.baseUrl]: bad } }), { mode: 0o600 });
    const r = await spawnSvc(['profile', '--json'], { env });
    await expectRefused(r, env, [bad, TOKEN]);
    expect(JSON.parse(String(r.stderr)).error.code).toBe('invalid_token');
  });

  it('the same token without the control character is sent and accepted (the refusals above are about the characters alone)', async () => {
    acceptingService();
    const env = cleanEnv({ SVC_API_KEY: TOKEN, SVC_BASE_URL: hostile.baseUrl });
    const r = await spawnSvc(['profile'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(hostile.requestsTo('/profile').map((e) => e.headers.get('authorization'))).toEqual([`Bearer ${TOKEN}`]);
  });
});
