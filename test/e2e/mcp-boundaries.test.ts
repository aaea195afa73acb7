/**
 * The agent server's boundaries (cli-contract 10, v5), with the MCP SDK's client over a spawned
 * `svc mcp serve` and a fake service on loopback:
 * - plan_restore connects to no database (issue 29 item 4): with PGPASSWORD in the server's
 *   environment and a fake PostgreSQL listening where the agent's target points (a TCP listener that
 *   asks any client for a cleartext password and records what it gets), the plan and the commands
 *   come back and not one connection arrives. The commands, pasted into a real shell, run svc alone.
 * - a token the service refuses does not stop the server (issue 34 item 3): it starts, serves
 *   get_profile, and each call answers with the 401's code and `svc auth login`; nothing on stderr
 *   calls a 401 a network failure.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { json, LoopbackServer } from '../support/loopback-server.js';
import { connectMcp, type McpSession } from '../support/mcp-client.js';
import { PasteShell } from '../support/paste-shell.js';
import { cleanEnv, cleanupBuiltCli, ensureBuilt } from '../support/built-cli.js';
import { listenOnLoopback } from '../support/ports.js';

const TOKEN = 'svc_test_mcp_boundaries_0123456789';
const PASSWORD = 'pg-ambient-secret-5f3e';

/** A PostgreSQL server as far as a password: it answers any startup with AuthenticationCleartextPassword and records what it is sent. */
class FakePostgres {
  connections = 0;
  received = '';
  port = 0;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;

  async start(): Promise<this> {
    this.#server = createServer((socket) => {
      this.connections += 1;
      this.#sockets.add(socket);
      socket.on('data', (chunk) => {
        this.received += chunk.toString('latin1');
        // An SSLRequest is refused ('N'); anything else is answered with a request for a cleartext password.
        if (chunk.length === 8 && chunk.readInt32BE(4) === 80877103) socket.write('N');
        else socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
      });
      socket.on('error', () => {});
    });
    this.port = await listenOnLoopback(this.#server!);
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}

let service: LoopbackServer;
let postgres: FakePostgres;
const sessions: McpSession[] = [];
const shell = new PasteShell();

beforeEach(async () => {
  service = await new LoopbackServer().start();
  postgres = await new FakePostgres().start();
});
afterEach(async () => {
  await Promise.all(sessions.map((s) => s.client.close().catch(() => {})));
  sessions.length = 0;
  await service.stop();
  await postgres.stop();
  cleanupBuiltCli();
});
afterAll(() => shell.cleanup());

async function serve(env: Record<string, string> = {}): Promise<McpSession> {
  await ensureBuilt();
  const s = await connectMcp(['mcp', 'serve'], cleanEnv({ SVC_BASE_URL: service.baseUrl, SVC_API_KEY: TOKEN, ...env }));
  sessions.push(s);
  return s;
}

describe('plan_restore never connects to a database', () => {
  it("with PGPASSWORD in the server's environment and a target on a fake PostgreSQL: the plan and both commands, and no connection", async () => {
    const backupJobId = `bj_0007;touch\${IFS}${shell.marker};#`;
    service.otherwise((ex) => {
      if (ex.url.pathname === '/api/v1/profile') return json(200, fixture('profile'));
      if (ex.url.pathname === '/api/v1/mcp/tools') return json(200, fixture('tools'));
      if (ex.url.pathname.startsWith('/api/v1/backups/')) return json(200, { ...fixture<Record<string, unknown>>('backup-get-completed'), id: backupJobId });
      return undefined;
    });
    const s = await serve({ PGPASSWORD: PASSWORD, PGHOST: '127.0.0.1', PGPORT: String(postgres.port) });
    const target = `postgresql://app@127.0.0.1:${postgres.port}/orders_restored?sslmode=disable`;

    const r: any = await s.client.callTool({ name: 'plan_restore', arguments: { backupJobId, target } });

    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(postgres.connections, `received: ${JSON.stringify(postgres.received)}`).toBe(0);
    expect(postgres.received).not.toContain(PASSWORD);
    const plan = r.structuredContent;
    expect(plan).toMatchObject({ dryRun: true, backupJobId, artifactBytes: 95129, mode: 'new_database', createDatabase: null });
    expect(plan.targetRedactedDsn).toBe(`postgresql://app@127.0.0.1:${postgres.port}/orders_restored`);
    // The dry run first, then the restore; pasted, each runs svc alone with exactly these arguments.
    expect(plan.commands).toHaveLength(2);
    expect(plan.command).toBe(plan.commands[1]);
    const words = ['--base-url', service.baseUrl, 'restore', 'create', '--backup', backupJobId, '--target', target];
    for (const [command, args] of [
      [plan.commands[0], [...words, '--dry-run']],
      [plan.commands[1], words],
    ] as const) {
      const pasted = await shell.paste(command);
      expect(pasted.runs, command).toEqual([{ program: 'svc', args }]);
    }
    expect(shell.injected).toBe(false);
    expect(s.transport.transcript().join('\n')).not.toContain(PASSWORD);
  }, 60_000);

  it('a target carrying a password is still refused, and nothing connects', async () => {
    service.otherwise((ex) =>
      ex.url.pathname === '/api/v1/profile' ? json(200, fixture('profile')) : ex.url.pathname === '/api/v1/mcp/tools' ? json(200, fixture('tools')) : undefined,
    );
    const s = await serve();
    const r: any = await s.client.callTool({
      name: 'plan_restore',
      arguments: { backupJobId: 'bj_0007', target: `postgresql://app:hunter2@127.0.0.1:${postgres.port}/x` },
    });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toContain('The target holds a password');
    expect(postgres.connections).toBe(0);
  }, 60_000);
});

describe('a token the service refuses', () => {
  it('the server starts, serves get_profile, and each call answers with the 401 and `svc auth login`; nothing says "Could not reach"', async () => {
    service.otherwise(() => json(401, fixture('error-401'), { 'x-request-id': 'req_revoked' }));
    const s = await serve();

    const { tools } = await s.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('get_profile');
    expect(names).not.toContain('list_databases');
    expect(names).not.toContain('plan_restore');
    const r: any = await s.client.callTool({ name: 'get_profile', arguments: {} });
    expect(r.isError).toBe(true);
    const { error } = JSON.parse(r.content[0].text);
    expect(error).toMatchObject({ code: fixture('error-401').error.code, status: 401 });
    expect(error.nextAction).toContain(`svc --base-url ${service.baseUrl} auth login`);
    expect(s.transport.stderr).toContain('The service refused the token');
    expect(s.transport.stderr).not.toContain('Could not reach');
  }, 60_000);

  it('a 404 names the tool that lists what exists, not a command', async () => {
    service.otherwise((ex) =>
      ex.url.pathname === '/api/v1/profile'
        ? json(200, fixture('profile'))
        : ex.url.pathname === '/api/v1/mcp/tools'
          ? json(200, fixture('tools'))
          : json(404, fixture('error-404')),
    );
    const s = await serve();
    const r: any = await s.client.callTool({ name: 'get_recovery_summary', arguments: { databaseId: 'orders-prod' } });
    expect(r.isError).toBe(true);
    const { error } = JSON.parse(r.content[0].text);
    expect(error.status).toBe(404);
    expect(error.nextAction).toContain('call list_databases');
    expect(error.nextAction).not.toContain('svc databases list');
    expect(s.transport.stderr).not.toContain('Could not reach');
  }, 60_000);
});
