/**
 * The issue's "done when", with a real client: an agent client started from `svc mcp config
 * claude`'s snippet (the SDK's Client spawning exactly its command, args and env, the login a saved
 * profile) lists the databases, reads a recovery candidate and plans a restore, getting back the
 * command; a person runs that command and it restores. The agent cannot restore itself, and
 * plan_restore is the dry run of restore create: the same checks, nothing created. Restores into a
 * throwaway PostgreSQL cluster; skips without PostgreSQL, except under CI.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dryRunDocumentSchema } from '../../src/core/restore/dry-run-document.js';
import { connectMcp, type McpSession } from '../support/mcp-client.js';
import { pgSkipReason, type PgCluster } from '../support/pg-cluster.js';
import { expectNoSecretsLeft } from '../support/secret-scan.js';
import { cleanEnv, cleanupE2e, ROOT, startE2eWithCluster, svc, tempDir, type E2eSandbox } from './helpers.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/e2e/mcp-plan.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('an agent from `svc mcp config claude`: list, candidate, plan_restore; a person restores', () => {
  const password = `mcp:${randomBytes(6).toString('hex')}`;
  let sb: E2eSandbox;
  let cluster: PgCluster;
  let env: Record<string, string>;
  let snippet: { command: string; args: string[]; env: Record<string, string> };
  const sessions: McpSession[] = [];

  beforeAll(async () => {
    ({ sb, cluster } = await startE2eWithCluster(password));
    // The user's machine: a saved login (profile "agent", no keychain here: the 0600 file), and the
    // target's password in ~/.pgpass, where libpq finds it: neither goes through the agent.
    env = cleanEnv();
    const pgpass = join(env.HOME!, '.pgpass');
    writeFileSync(pgpass, `${cluster.host}:${cluster.port}:*:${cluster.user}:${password.replace(/[:\\]/g, '\\$&')}\n`);
    chmodSync(pgpass, 0o600);
    const login = await svc(['auth', 'login', '--with-token', '--profile', 'agent', '--base-url', sb.baseUrl], { env, input: sb.token('full') });
    expect(login.code, login.stderr).toBe(0);
    const config = await svc(['--profile', 'agent', 'mcp', 'config', 'claude'], { env });
    expect(config.code, config.stderr).toBe(0);
    expect(config.stderr).toContain('never a token');
    snippet = JSON.parse(config.stdout).mcpServers.svc;
  }, 180_000);

  afterAll(async () => {
    for (const s of sessions) s.transport.child.kill('SIGKILL');
    await Promise.all([cluster?.stop(), sb?.stop()]);
    cleanupE2e();
  });

  const secrets = () => ({ tokens: sb.tokens.map((t) => t.token), dsnPasswords: [password] });

  /** The agent client: the snippet's command (svc, here the built bin/svc), args and env, over the user's environment. */
  async function agent(extra: Record<string, string> = {}): Promise<McpSession> {
    expect(snippet.command).toBe('svc');
    const s = await connectMcp(snippet.args, { ...env, ...snippet.env, ...extra });
    sessions.push(s);
    return s;
  }

  async function finish(s: McpSession): Promise<void> {
    await s.client.close();
    await s.transport.exited;
    expect(s.transport.strays).toEqual([]);
    await expectNoSecretsLeft({ texts: s.transport.transcript(), paths: [env.TMPDIR!] }, secrets());
  }

  const restoresCreated = () => sb.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/restores').length;
  const exists = async (db: string) => (await cluster.psql(`SELECT count(*) FROM pg_database WHERE datname = '${db}'`)) === '1';

  it('the snippet names the profile, never a token', () => {
    expect(snippet).toEqual({ type: 'stdio', command: 'svc', args: ['mcp', 'serve'], env: { SVC_PROFILE: 'agent' } });
  });

  it('lists the databases, reads a recovery candidate, plans a restore from it and gets the command, which a person runs', async () => {
    const s = await agent();
    const listed: any = await s.client.callTool({ name: 'list_databases', arguments: { limit: 100 } });
    expect(listed.structuredContent.databases.map((d: { id: string }) => d.id)).toContain('db_orders');
    const candidate: any = await s.client.callTool({
      name: 'get_recovery_candidate',
      arguments: { databaseId: 'db_orders', incidentTime: '2026-11-21T10:00:00Z' },
    });
    const windowId = candidate.structuredContent.recommended.windowId;
    expect(windowId).toBe('rw_0003');

    const target = cluster.dsn('agent_plan', false);
    const created = restoresCreated();
    const planned: any = await s.client.callTool({ name: 'plan_restore', arguments: { windowId, target } });
    expect(planned.isError, planned.content[0].text).toBeFalsy();
    const plan = planned.structuredContent;
    expect(plan).toMatchObject({
      dryRun: true,
      backupJobId: 'bj_0007',
      backupSelection: { rule: 'window', windowId: 'rw_0003', backupJobId: 'bj_0007' },
      targetRedactedDsn: target,
      mode: 'new_database',
      // plan_restore connects to no database (cli-contract 10, v5): the person's dry run says.
      createDatabase: null,
    });
    expect(plan.command).toBe(`svc --profile agent restore create --backup bj_0007 --target ${target}`);
    expect(plan.commands).toEqual([`${plan.command} --dry-run`, plan.command]);
    expect(plan.note).toContain('Nothing was created, downloaded or restored');
    expect(plan.note).toContain('Nothing here is point-in-time recovery');
    // A dry run: no restore job, no database.
    expect(restoresCreated()).toBe(created);
    expect(await exists('agent_plan')).toBe(false);
    // The same plan as `svc restore create --dry-run --json` prints for the person, but for what only the target can tell.
    const dry = await svc(['--profile', 'agent', 'restore', 'create', '--window', windowId, '--target', target, '--dry-run', '--json'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const { command: _c, commands: _cs, note: _n, createDatabase: _p, ...doc } = plan;
    const { createDatabase, ...checked } = JSON.parse(dry.stdout);
    expect(createDatabase).toBe(true);
    expect(doc).toEqual(checked);
    // One schema of the document (src/core): the person's dry-run JSON is exactly it, and plan_restore's output extends it.
    expect(dryRunDocumentSchema.safeParse(JSON.parse(dry.stdout)).error?.issues).toBeUndefined();
    await finish(s);

    // The person runs the command as given, in a shell where `svc` is the built CLI.
    const bin = join(tempDir('bin'));
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'svc')}" "$@"\n`, { mode: 0o755 });
    const person = await execa('sh', ['-c', plan.command], { env: { ...env, PATH: `${bin}:${env.PATH}` }, extendEnv: false, reject: false, timeout: 120_000 });
    expect(person.exitCode, person.stderr).toBe(0);
    await expectNoSecretsLeft({ texts: [person.stdout, person.stderr] }, secrets());
    expect(await cluster.psql('SELECT count(*) FROM orders', 'agent_plan')).toBe('5000');
  }, 180_000);

  it('plans an in-place restore: the command has --in-place and no --confirm: the person confirms it', async () => {
    const s = await agent();
    const r: any = await s.client.callTool({
      name: 'plan_restore',
      arguments: { databaseId: 'db_orders', latest: true, target: cluster.dsn('agent_plan', false), inPlace: true },
    });
    expect(r.isError, r.content[0].text).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      mode: 'in_place',
      atomic: false,
      createDatabase: null,
      backupSelection: { rule: 'latest', backupJobId: 'bj_0007' },
    });
    expect(r.structuredContent.command).toBe(`svc --profile agent restore create --backup bj_0007 --target ${cluster.dsn('agent_plan', false)} --in-place`);
    expect(r.structuredContent.note).toContain('confirmed by typing the database name');
    await finish(s);
  });

  it('a password in the target is refused: it never goes through an agent; nothing is sent', async () => {
    const s = await agent();
    const before = sb.requests.length;
    const r: any = await s.client.callTool({ name: 'plan_restore', arguments: { backupJobId: 'bj_0007', target: cluster.dsn('agent_pw', true) } });
    expect(r.isError).toBe(true);
    const e = JSON.parse(r.content[0].text).error;
    expect(e).toMatchObject({ code: 'usage', message: 'The target holds a password; a password is never given to an agent tool.' });
    expect(e.nextAction).toContain('~/.pgpass');
    expect(sb.requests.length).toBe(before);
    // The agent's own argument came back in no form: the transcript's server side holds no password.
    expect(s.transport.stdout).not.toContain(password);
    await s.client.close();
    await s.transport.exited;
    await expectNoSecretsLeft({ texts: [s.transport.stdout, s.transport.stderr], paths: [env.TMPDIR!] }, secrets());
  });

  it('a token that cannot restore (read-only agent token): missing_scope naming restores:write, as a 403 would; nothing created', async () => {
    const s = await agent({ SVC_API_KEY: sb.token('read-only') });
    const created = restoresCreated();
    const r: any = await s.client.callTool({
      name: 'plan_restore',
      arguments: { databaseId: 'db_orders', latest: true, target: cluster.dsn('agent_ro', false) },
    });
    const e = JSON.parse(r.content[0].text).error;
    expect(r.isError).toBe(true);
    expect(e).toMatchObject({ code: 'missing_scope', requiredScope: 'restores:write', nextAction: expect.stringContaining('required scope') });
    expect(e.message).toContain('lacks restores:write');
    expect(restoresCreated()).toBe(created);
    expect(await exists('agent_ro')).toBe(false);
    await finish(s);
  });

  it('a selection that names two backups is the usage error restore create gives; nothing is sent', async () => {
    const s = await agent();
    const before = sb.requests.length;
    const r: any = await s.client.callTool({
      name: 'plan_restore',
      arguments: { backupJobId: 'bj_0007', windowId: 'rw_0003', target: cluster.dsn('agent_two', false) },
    });
    expect(JSON.parse(r.content[0].text).error).toMatchObject({ code: 'usage', message: expect.stringContaining('each name the backup') });
    expect(sb.requests.length).toBe(before);
    await finish(s);
  });
});
