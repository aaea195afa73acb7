/**
 * Errors say what to do next in the words that fit the case (issue 18, item 3): a 401 while
 * SVC_API_KEY is set cannot be cured by `svc auth login`, which that variable overrides; a 404 names
 * what was not found and the command that lists what exists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeKeychain } from '../support/fake-keychain.js';
import { fixture } from '../support/fixtures.js';
import { json, LoopbackServer } from '../support/loopback-server.js';
import { runCli } from '../support/run-cli.js';

const TOKEN = 'svc_test_5e1f0c3b9a7e42c08e7d1a2b3c4d5e60';
let server: LoopbackServer;
let home: string;

beforeEach(async () => {
  server = await new LoopbackServer().start();
  home = mkdtempSync(join(tmpdir(), 'svc-hints-'));
});
afterEach(async () => {
  await server.stop();
  rmSync(home, { recursive: true, force: true });
});

const svc = (args: string[], env: Record<string, string> = {}, keytar: FakeKeychain | null = null) =>
  runCli([...args, '--base-url', server.baseUrl], { keytar, env: { HOME: home, XDG_CONFIG_HOME: home, ...env } });

describe('401: the advice fits where the token came from', () => {
  it('SVC_API_KEY set: it overrides any saved login, so say to fix or unset it, and where tokens come from', async () => {
    server.otherwise(() => json(401, fixture('error-401')));
    const r = await svc(['databases', 'list'], { SVC_API_KEY: TOKEN });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `SVC_API_KEY is set and overrides any saved login: set it to a valid token, or unset it to use the one \`svc --base-url ${server.baseUrl} auth login\` stored.`,
    );
    expect(r.stderr).toContain('New tokens are made in the dashboard under Settings, API tokens.');
    expect(r.stderr).not.toContain('Run `svc auth login`');
  });

  it('a stored token: log in again', async () => {
    const keychain = new FakeKeychain();
    server.otherwise((ex) =>
      ex.headers.get('authorization') === `Bearer ${TOKEN}` && ex.url.pathname === '/api/v1/profile'
        ? json(200, fixture('profile'))
        : json(401, fixture('error-401')),
    );
    expect(
      (
        await runCli(['auth', 'login', '--with-token', '--base-url', server.baseUrl], {
          keytar: keychain,
          stdin: TOKEN,
          env: { HOME: home, XDG_CONFIG_HOME: home },
        })
      ).code,
    ).toBe(0);
    const r = await svc(['databases', 'list'], {}, keychain);
    expect(r.code).toBe(3);
    // The command carries the --base-url this run was given (cli-contract 4, v5).
    expect(r.stderr).toContain(
      `Run \`svc --base-url ${server.baseUrl} auth login\` to store a valid token, or set SVC_API_KEY. New tokens are made in the dashboard under Settings, API tokens.`,
    );
    expect(r.stderr).not.toContain('SVC_API_KEY is set');
  });

  it('no token at all: where one comes from', async () => {
    const r = await svc(['databases', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('tokens are made in the dashboard under Settings, API tokens');
    expect(server.exchanges).toHaveLength(0);
  });
});

describe('404: what was not found, and how to list what exists', () => {
  it.each([
    [['backups', 'get', 'bj_0042'], 'There is no backup job bj_0042 in this organization', 'svc backups list <databaseId>'],
    [['databases', 'get', 'db_nope'], 'There is no database db_nope in this organization', 'svc databases list'],
    [['backups', 'list', 'db_nope'], 'There is no database db_nope in this organization', 'svc databases list'],
    [['destinations', 'get', 'dst_nope'], 'There is no destination dst_nope in this organization', 'svc destinations list'],
    [['evidence', 'get', 'bj_0042'], 'There is no evidence for backup job bj_0042 in this organization', 'svc evidence list --database <databaseId>'],
    [['recovery', 'proof', 'rw_9'], 'There is no recovery window rw_9 in this organization', 'svc recovery summary <databaseId>'],
    [['recovery', 'summary', 'db_nope'], 'There is no database db_nope in this organization', 'svc databases list'],
    [['restore', 'get', 'rj_nope'], 'There is no restore job rj_nope in this organization', 'the restore job id printed by svc restore create'],
  ])('svc %j', async (args, names, lists) => {
    server.otherwise(() => json(404, fixture('error-404')));
    const r = await svc(args, { SVC_API_KEY: TOKEN });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(names);
    // Every listed command carries the --base-url this run was given (cli-contract 4, v5).
    expect(r.stderr).toContain(`To see what exists: ${lists.replace(/^svc /, `svc --base-url ${server.baseUrl} `)}`);
    expect(r.stderr).toMatch(/request id: /);
  });

  it('svc api: a 404 of a raw path keeps the general advice', async () => {
    server.otherwise(() => json(404, fixture('error-404')));
    const r = await svc(['api', '/backups/bj_0042'], { SVC_API_KEY: TOKEN });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('Check the id.');
  });
});
