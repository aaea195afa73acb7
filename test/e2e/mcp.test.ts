/**
 * `svc mcp serve` (cli-contract 10) with a real client: the MCP SDK's own Client over the built CLI,
 * spawned as an agent client spawns it, against the sandbox over real HTTP. Every session's whole
 * stdio transcript (both directions, and stderr) goes through the secret scan. plan_restore, which
 * needs PostgreSQL, and the done-when walk from `svc mcp config claude` are in mcp-plan.test.ts.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../support/fixtures.js';
import { json, LoopbackServer } from '../support/loopback-server.js';
import { connectMcp, type Elicit, type McpSession } from '../support/mcp-client.js';
import { expectNoSecretsLeft } from '../support/secret-scan.js';
import { cleanEnv, cleanupE2e, ensureBuilt, startE2eSandbox, svc, tempDir, type E2eSandbox } from './helpers.js';

const ALL = [
  'get_profile',
  'list_databases',
  'get_database',
  'list_destinations',
  'get_destination',
  'list_backups',
  'get_backup',
  'list_evidence',
  'get_evidence',
  'get_restore',
  'get_recovery_summary',
  'get_recovery_candidate',
  'get_recovery_window_proof',
  'list_agent_tools',
  'trigger_backup',
  'plan_restore',
];
const CAVEAT = /A completed backup is not proof of recoverability.*Nothing here is point-in-time recovery/s;

let sb: E2eSandbox;
const sessions: McpSession[] = [];

/** A copy of fixtures/ whose catalog entry for svc.backup.trigger is changed: a human gate, no live route, advisory. */
function dataDirWith(trigger: Record<string, unknown>): string {
  const dir = tempDir('data');
  for (const sub of ['api', 'sandbox', 'artifacts']) cpSync(join(FIXTURES_DIR, sub), join(dir, sub), { recursive: true });
  const file = join(dir, 'api', 'tools.json');
  const catalog = JSON.parse(readFileSync(file, 'utf8'));
  catalog.tools = catalog.tools.map((t: { name: string }) => (t.name === 'svc.backup.trigger' ? { ...t, ...trigger } : t));
  writeFileSync(file, JSON.stringify(catalog));
  return dir;
}

async function open(args: string[], env: Record<string, string>, elicit?: Elicit): Promise<McpSession> {
  const s = await connectMcp(['mcp', 'serve', ...args], env, { elicit });
  sessions.push(s);
  return s;
}

/** Closes the session and scans everything it said, both ways, and everything it left in HOME and TMPDIR. */
async function finish(s: McpSession): Promise<void> {
  await s.client.close();
  await s.transport.exited;
  expect(s.transport.strays, 'stdout carried something other than JSON-RPC').toEqual([]);
  await expectNoSecretsLeft(
    { texts: s.transport.transcript(), paths: [s.transport.env.HOME!, s.transport.env.TMPDIR!] },
    { tokens: sb.tokens.map((t) => t.token) },
  );
}

const names = async (s: McpSession) => (await s.client.listTools()).tools.map((t) => t.name);

/** A tool error's envelope (cli-contract 4's --json error, as the tool result's text). */
function toolError(result: any): {
  code: string;
  message: string;
  requestId: string | null;
  status: number | null;
  requiredScope?: string;
  nextAction: string | null;
  retryAfterSeconds?: number;
} {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return JSON.parse(result.content[0].text).error;
}

const posts = () => sb.requests.filter((r) => r.method === 'POST');

beforeAll(async () => {
  await ensureBuilt();
  sb = await startE2eSandbox();
}, 180_000);

afterAll(async () => {
  for (const s of sessions) s.transport.child.kill('SIGKILL');
  await sb?.stop();
  cleanupE2e();
});

describe('tools/list: what the token and the live catalog allow', () => {
  it('a full token: every tool of section 10, each with annotations, an input and an output schema; the instructions say what is not proof', async () => {
    const s = await open([], sb.env('full'));
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL);
    for (const t of tools) {
      expect(t.annotations, t.name).toMatchObject({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: false,
        idempotentHint: expect.any(Boolean),
        openWorldHint: true,
      });
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(tools.filter((t) => !t.annotations!.readOnlyHint).map((t) => t.name)).toEqual(['trigger_backup']);
    for (const name of [
      'list_backups',
      'get_backup',
      'list_evidence',
      'get_evidence',
      'get_restore',
      'trigger_backup',
      'plan_restore',
      'get_recovery_candidate',
    ]) {
      expect(byName[name]!.description, name).toMatch(CAVEAT);
    }
    const instructions = s.client.getInstructions() ?? '';
    expect(instructions).toMatch(CAVEAT);
    expect(instructions).toContain('No tool restores, runs a restore drill or changes a database');
    expect(instructions).toContain('The service itself has no MCP transport');
    await finish(s);
  });

  it('the tools as clients see them (names, descriptions, annotations, schemas) match the reviewed snapshot: a rename is a diff (__toolsnaps__)', async () => {
    const s = await open([], sb.env('full'));
    const { tools } = await s.client.listTools();
    await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot('__toolsnaps__/svc-mcp-tools.json');
    await finish(s);
  });

  it('a read-only agent token (databases:read): only the tools whose route scope it holds', async () => {
    const s = await open([], sb.env('read-only'));
    expect(await names(s)).toEqual([
      'get_profile',
      'list_databases',
      'get_database',
      'list_backups',
      'get_backup',
      'get_recovery_summary',
      'get_recovery_candidate',
      'get_recovery_window_proof',
      'list_agent_tools',
      'plan_restore',
    ]);
    await finish(s);
  });

  it('a token with no scopes: get_profile and list_agent_tools, which need none', async () => {
    const s = await open([], sb.env('no-scope'));
    expect(await names(s)).toEqual(['get_profile', 'list_agent_tools']);
    await finish(s);
  });

  it('the agent cannot restore, drill or call a catalog tool: no such tool exists, and calling one sends nothing', async () => {
    const s = await open([], sb.env('full'));
    const listed = await names(s);
    expect(listed.filter((n) => /restore|drill|svc\./.test(n))).toEqual(['get_restore', 'plan_restore']);
    const before = sb.requests.length;
    for (const name of ['restore', 'create_restore', 'svc.recovery.restore', 'svc.evidence.export', 'svc.audit.inspect']) {
      const r: any = await s.client.callTool({ name, arguments: {} });
      expect(r.isError, name).toBe(true);
      expect(r.content[0].text).toContain(`Tool ${name} not found`);
    }
    expect(sb.requests.length).toBe(before);
    await finish(s);
  });
});

describe('tools/call: every tool, its structuredContent valid against the output schema it advertised', () => {
  const calls: Array<[string, Record<string, unknown>, (data: any) => void]> = [
    ['get_profile', {}, (d) => expect(d.profile.organizationSlug).toBe('acme')],
    [
      'list_databases',
      { limit: 1 },
      (d) => {
        expect(d.databases.map((x: any) => x.id)).toEqual(['db_orders']);
        expect(d.nextCursor).toEqual(expect.any(String));
      },
    ],
    ['get_database', { databaseId: 'db_orders' }, (d) => expect(d.database.name).toBe('orders-prod')],
    ['list_destinations', {}, (d) => expect(d.destinations.length).toBeGreaterThan(0)],
    ['get_destination', { destinationId: 'dst_eu_s3' }, (d) => expect(d.destination.id).toBe('dst_eu_s3')],
    ['list_backups', { databaseId: 'db_orders', limit: 100 }, (d) => expect(d.backupJobs.some((j: any) => j.id === 'bj_0007')).toBe(true)],
    ['get_backup', { backupJobId: 'bj_0007' }, (d) => expect(d.state).toBe('completed')],
    ['list_evidence', { databaseId: 'db_orders' }, (d) => expect(d.proofSemantics.completedBackup).toEqual(expect.any(String))],
    ['get_evidence', { backupJobId: 'bj_0007' }, (d) => expect(d.proofSemantics.provenRecoverability).toEqual(expect.any(String))],
    ['get_restore', { restoreJobId: 'rj_0001' }, (d) => expect(d.restoreJob.proof).toEqual(expect.objectContaining({ verifiedRestore: expect.any(Boolean) }))],
    ['get_recovery_summary', { databaseId: 'db_orders' }, (d) => expect(d.databaseId).toBe('db_orders')],
    [
      'get_recovery_candidate',
      { databaseId: 'db_orders', incidentTime: '2026-11-21T10:00:00Z' },
      (d) => expect(d.recommended?.windowId).toEqual(expect.any(String)),
    ],
    ['get_recovery_window_proof', { windowId: 'rw_0003' }, (d) => expect(d.proof.baselineArtifact.backupJobId).toBe('bj_0007')],
    [
      'list_agent_tools',
      {},
      (d) => {
        const kind = Object.fromEntries(d.tools.map((t: any) => [t.name, t.kind]));
        expect(kind['svc.backup.trigger']).toBe('live');
        expect(kind['svc.audit.inspect']).toBe('no live route');
        expect(kind['svc.recovery.restore']).toBe('advisory');
      },
    ],
    [
      'trigger_backup',
      { databaseId: 'db_billing', idempotencyKey: 'mcp-e2e-each-tool' },
      (d) => expect(d).toMatchObject({ outcome: 'started', backup: { state: 'queued' } }),
    ],
  ];

  it('each call: the validated JSON as structuredContent and the same as compact text', async () => {
    const s = await open([], sb.env('full'));
    const { tools } = await s.client.listTools();
    const ajv = new AjvJsonSchemaValidator();
    for (const [name, args, check] of calls) {
      const r: any = await s.client.callTool({ name, arguments: args });
      expect(r.isError, `${name}: ${r.content?.[0]?.text}`).toBeFalsy();
      const schema = tools.find((t) => t.name === name)!.outputSchema!;
      const verdict = ajv.getValidator(schema as any)(r.structuredContent);
      expect(verdict.valid, `${name}: ${verdict.valid ? '' : verdict.errorMessage}`).toBe(true);
      expect(JSON.parse(r.content[0].text)).toEqual(r.structuredContent);
      expect(Buffer.byteLength(r.content[0].text)).toBeLessThanOrEqual(256 * 1024);
      check(r.structuredContent);
    }
    await finish(s);
  });

  it('a list returns at most 100 items a call: a larger limit is refused by the input schema, nothing is sent', async () => {
    const s = await open([], sb.env('full'));
    const before = sb.requests.length;
    const r: any = await s.client.callTool({ name: 'list_databases', arguments: { limit: 101 } });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/Input validation error.*limit/s);
    const dot: any = await s.client.callTool({ name: 'get_database', arguments: { databaseId: '..' } });
    expect(toolError(dot)).toMatchObject({ code: 'usage', message: expect.stringContaining('"." and ".." cannot name a resource') });
    expect(sb.requests.length).toBe(before);
    await finish(s);
  });
});

describe('errors carry the code, the request id, and for 403 the required scope and next action', () => {
  it('404: the service code, its request id, the status and what to do next', async () => {
    const s = await open([], sb.env('full'));
    const e = toolError(await s.client.callTool({ name: 'get_database', arguments: { databaseId: 'db_nope' } }));
    expect(e).toMatchObject({ code: 'not_found', status: 404, requestId: expect.stringMatching(/^req_[0-9a-f]{24}$/) });
    // An agent is pointed at the tool that lists what exists, not at a command (cli-contract 10, v5).
    expect(e.nextAction).toContain('call list_databases');
    expect(e.nextAction).not.toContain('svc databases list');
    expect(sb.requests.some((r) => r.requestId === e.requestId && r.status === 404)).toBe(true);
    await finish(s);
  });

  it('429 with Retry-After where the budget was not announced (--max-retries 0): rate_limited and when to try again', async () => {
    // The sandbox announces its budget (RateLimit-Remaining), and svc now paces on it instead of meeting
    // a 429 (cli-contract 6, v4). A 429 still comes from a service that limits without announcing it:
    // a loopback stand-in answers list_databases with one.
    const api = await new LoopbackServer().start();
    try {
      const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES_DIR, 'api', `${name}.json`), 'utf8'));
      api.otherwise((ex) => {
        if (ex.url.pathname === '/api/v1/profile') return json(200, fixture('profile'), { 'x-request-id': 'req_profile_1' });
        if (ex.url.pathname === '/api/v1/mcp/tools') return json(200, fixture('tools'), { 'x-request-id': 'req_tools_1' });
        if (ex.url.pathname === '/api/v1/databases') return json(429, fixture('error-429'), { 'x-request-id': 'req_limited_1', 'retry-after': '7' });
        return undefined;
      });
      const s = await open(['--max-retries', '0'], cleanEnv({ SVC_BASE_URL: api.baseUrl, SVC_API_KEY: sb.token('full') }));
      const e = toolError(await s.client.callTool({ name: 'list_databases', arguments: {} }));
      expect(e).toMatchObject({ code: 'rate_limited', status: 429, requestId: expect.stringMatching(/^req_/) });
      expect(e.retryAfterSeconds).toBe(7);
      expect(e.nextAction).toMatch(/try again in \d+s/);
      await finish(s);
    } finally {
      await api.stop();
    }
  });

  describe('403 from a service that narrowed the token after start-up (a loopback stand-in)', () => {
    let api: LoopbackServer;
    beforeAll(async () => {
      api = await new LoopbackServer().start();
      const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES_DIR, 'api', `${name}.json`), 'utf8'));
      api.otherwise((ex) => {
        if (ex.url.pathname === '/api/v1/profile') return json(200, fixture('profile'), { 'x-request-id': 'req_profile_1' });
        if (ex.url.pathname === '/api/v1/mcp/tools') return json(200, fixture('tools'), { 'x-request-id': 'req_tools_1' });
        if (ex.url.pathname === '/api/v1/evidence') return json(403, fixture('error-403'), { 'x-request-id': 'req_forbidden_1' });
        return undefined;
      });
    });
    afterAll(() => api?.stop());

    it('the required scope and the next action, beside the code and request id', async () => {
      const s = await open([], cleanEnv({ SVC_BASE_URL: api.baseUrl, SVC_API_KEY: sb.token('full') }));
      const e = toolError(await s.client.callTool({ name: 'list_evidence', arguments: {} }));
      expect(e).toEqual({
        code: 'forbidden',
        message: 'This API key lacks the scope required for this operation.',
        requestId: 'req_forbidden_1',
        status: 403,
        requiredScope: 'evidence:read',
        nextAction: 'Issue a token with evidence:read in Settings > API tokens.',
      });
      expect(api.unhandled).toEqual([]);
      await finish(s);
    });
  });
});

describe('trigger_backup: one idempotency key per logical request, reused on retry', () => {
  it('called again with the key it returned: the same backup job, not a second one', async () => {
    const s = await open([], sb.env('full'));
    const first: any = await s.client.callTool({ name: 'trigger_backup', arguments: { databaseId: 'db_orders' } });
    const { idempotencyKey, backup } = first.structuredContent;
    expect(idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const again: any = await s.client.callTool({ name: 'trigger_backup', arguments: { databaseId: 'db_orders', idempotencyKey } });
    expect(again.structuredContent).toEqual({ outcome: 'started', idempotencyKey, backup });
    const other: any = await s.client.callTool({ name: 'trigger_backup', arguments: { databaseId: 'db_orders' } });
    expect(other.structuredContent.backup.backupJobId).not.toBe(backup.backupJobId);
    await finish(s);
  });
});

describe('--read-only and --tools: nothing is registered that the flags exclude, even when named', () => {
  it('--read-only: no trigger_backup, and calling it sends nothing', async () => {
    const s = await open(['--read-only'], sb.env('full'));
    expect(await names(s)).toEqual(ALL.filter((n) => n !== 'trigger_backup'));
    const before = posts().length;
    const r: any = await s.client.callTool({ name: 'trigger_backup', arguments: { databaseId: 'db_orders' } });
    expect(r.isError).toBe(true);
    expect(posts().length).toBe(before);
    await finish(s);
  });

  it('--tools with --read-only: only the named read tools; the write tool named is not served, and stderr says why', async () => {
    const s = await open(['--read-only', '--tools', 'list_databases,trigger_backup,get_evidence'], sb.env('read-only'));
    expect(await names(s)).toEqual(['list_databases']);
    expect(s.transport.stderr).toContain('trigger_backup is not served: --read-only.');
    expect(s.transport.stderr).toContain('get_evidence is not served: the token lacks evidence:read.');
    await finish(s);
  });

  it('an unknown name in --tools is exit 2 before anything is sent; flags that leave nothing are exit 2 too', async () => {
    const before = sb.requests.length;
    const r = await svc(['mcp', 'serve', '--tools', 'list_databases,restore_database'], { env: sb.env('full') });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No such tool: restore_database.');
    expect(sb.requests.length).toBe(before);
    const none = await svc(['mcp', 'serve', '--read-only', '--tools', 'trigger_backup'], { env: sb.env('full') });
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('No tool is left to serve.');
  });
});

describe('the live catalog decides trigger_backup: advisory and no-live-route tools are never registered (rule 2)', () => {
  it.each([
    ['advisory', { callable: false, routeScope: null }],
    ['no live route', { callable: true, routeScope: null }],
  ])('svc.backup.trigger %s: not served, even named in --tools with a full token', async (kind, entry) => {
    const gated = await startE2eSandbox({ dataDir: dataDirWith(entry) });
    try {
      const s = await open(['--tools', 'trigger_backup,list_agent_tools'], gated.env('full'));
      expect(await names(s)).toEqual(['list_agent_tools']);
      expect(s.transport.stderr).toContain(`trigger_backup is not served: the service's catalog marks svc.backup.trigger ${kind}.`);
      await finish(s);
      expect(gated.requests.filter((r) => r.method === 'POST')).toEqual([]);
    } finally {
      await gated.stop();
    }
  });
});

describe('the live catalog is asked again at each trigger_backup call (a loopback stand-in whose catalog changes)', () => {
  let api: LoopbackServer;
  afterAll(() => api?.stop());

  it('svc.backup.trigger live at start, advisory by the call: a tool error, and no POST', async () => {
    api = await new LoopbackServer().start();
    const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES_DIR, 'api', `${name}.json`), 'utf8'));
    let catalogs = 0;
    api.otherwise((ex) => {
      if (ex.url.pathname === '/api/v1/profile') return json(200, fixture('profile'));
      if (ex.url.pathname !== '/api/v1/mcp/tools') return undefined;
      const catalog = fixture('tools');
      if (++catalogs > 1) catalog.tools = catalog.tools.map((t: { name: string }) => (t.name === 'svc.backup.trigger' ? { ...t, callable: false } : t));
      return json(200, catalog);
    });
    const s = await open(['--tools', 'trigger_backup'], cleanEnv({ SVC_BASE_URL: api.baseUrl, SVC_API_KEY: sb.token('full') }));
    expect(await names(s)).toEqual(['trigger_backup']);
    const e = toolError(await s.client.callTool({ name: 'trigger_backup', arguments: { databaseId: 'db_orders' } }));
    expect(e).toMatchObject({ code: 'tool_not_found', message: expect.stringContaining('no longer has svc.backup.trigger live (advisory): nothing was sent') });
    expect(api.exchanges.filter((x) => x.method === 'POST')).toEqual([]);
    expect(api.unhandled).toEqual([]);
    await finish(s);
  });
});

describe('a human gate on the live catalog entry: asked through elicitation, never passed without a person (rule 3)', () => {
  let gated: E2eSandbox;
  beforeAll(async () => {
    gated = await startE2eSandbox({ dataDir: dataDirWith({ humanGate: 'confirmation_required' }) });
  });
  afterAll(() => gated?.stop());
  const gatedPosts = () => gated.requests.filter((r) => r.method === 'POST').length;

  it('accepted: the person was asked, naming the database and the gate, then the backup started', async () => {
    const s = await open([], gated.env('full'), 'accept');
    const r: any = await s.client.callTool({ name: 'trigger_backup', arguments: { databaseId: 'db_orders' } });
    expect(s.elicitations).toEqual([expect.stringContaining('Start an ad-hoc backup of database db_orders?')]);
    expect(s.elicitations[0]).toContain('confirmation_required');
    expect(r.structuredContent).toMatchObject({ outcome: 'started', backup: { state: 'queued' } });
    expect(gatedPosts()).toBe(1);
    await finish(s);
  });

  it.each(['decline', 'cancel'] as const)('%s: nothing is sent', async (answer) => {
    const s = await open([], gated.env('full'), answer);
    const before = gatedPosts();
    const r: any = await s.client.callTool({ name: 'trigger_backup', arguments: { databaseId: 'db_orders' } });
    expect(s.elicitations.length).toBe(1);
    expect(r.structuredContent).toEqual({ outcome: 'declined', idempotencyKey: expect.any(String) });
    expect(gatedPosts()).toBe(before);
    await finish(s);
  });

  it('a client that cannot elicit: the confirmation challenge as the result, and nothing done', async () => {
    const s = await open([], gated.env('full'));
    const before = gatedPosts();
    const r: any = await s.client.callTool({ name: 'trigger_backup', arguments: { databaseId: 'db_orders', idempotencyKey: 'gate-k1' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({
      outcome: 'confirmation_required',
      idempotencyKey: 'gate-k1',
      challenge: {
        humanGate: 'confirmation_required',
        catalogTool: 'svc.backup.trigger',
        message: expect.stringContaining('show this to a person'),
        // For a person's own shell, which lacks the agent client's SVC_BASE_URL (cli-contract 4, v5), built by the one builder.
        command: `svc --base-url ${gated.baseUrl} backups trigger --idempotency-key gate-k1 db_orders`,
      },
    });
    expect(gatedPosts()).toBe(before);
    await finish(s);
  });
});

describe('the transport', () => {
  it('--verbose: stdout is JSON-RPC and nothing else; the HTTP lines go to stderr', async () => {
    const s = await open(['--verbose'], sb.env('full'));
    await s.client.callTool({ name: 'list_databases', arguments: {} });
    await s.client.callTool({ name: 'get_database', arguments: { databaseId: 'db_nope' } });
    await finish(s);
    const lines = s.transport.stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(s.transport.stderr).toMatch(/GET \/api\/v1\/databases 200/);
    expect(s.transport.stderr).toMatch(/GET \/api\/v1\/databases\/db_nope 404/);
    expect(s.transport.stdout).not.toMatch(/GET \/api\/v1/);
  });

  it('closing stdin ends the server with exit 0', async () => {
    const s = await open([], sb.env('full'));
    await finish(s);
    expect(await s.transport.exited).toEqual({ code: 0, signal: null });
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s mid-call (a 429 being waited out): exit %i, cleanly, nothing left running',
    async (signal, code) => {
      // A sandbox of its own: a fresh rate window, whatever the case before it spent (otherwise start-up
      // itself waits for the window, and the signal can land before the session is up).
      const own = await startE2eSandbox();
      try {
        // tiny-budget: 3 requests per 10 s. Start-up takes two; of six more calls at once, some wait for the
        // window to reset: paced on RateLimit-Remaining (said with --verbose), or after a 429's Retry-After.
        const s = await open(['--verbose'], own.env('tiny-budget'));
        const started = s.transport.stderr.length;
        const calls = Array.from({ length: 6 }, () =>
          s.client.callTool({ name: 'list_databases', arguments: {} }).then(
            () => 'answered',
            () => 'cut off',
          ),
        );
        // A wait of the calls, not of start-up.
        const waiting = /rate limit: .*waiting|Rate limited; retrying in/;
        const deadline = Date.now() + 30_000;
        while (!waiting.test(s.transport.stderr.slice(started)) && Date.now() < deadline) await sleep(50);
        expect(s.transport.stderr.slice(started)).toMatch(waiting);
        s.transport.child.kill(signal);
        expect(await s.transport.exited).toEqual({ code, signal: null });
        expect(await Promise.all(calls)).toContain('cut off');
        expect(s.transport.stderr).toContain('Interrupted');
        expect(s.transport.stderr).not.toMatch(/\n\s+at /);
        expect(s.transport.strays).toEqual([]);
        await expectNoSecretsLeft({ texts: s.transport.transcript() }, { tokens: own.tokens.map((t) => t.token) });
      } finally {
        await own.stop();
      }
    },
    120_000,
  );
});
