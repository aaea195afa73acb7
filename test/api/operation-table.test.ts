/**
 * One operation table (src/api/operation-table.ts), three faces derived from it: the CLI's operation
 * functions, the MCP tools' scopes and the sandbox's routes. Each face is checked here as it really
 * is (the functions called, the tools called, the sandbox's own matcher), so a scope, path or method
 * written by hand in a face, and differing from the table, fails.
 */
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/api/client.js';
import { OPERATION_TABLE, type OperationName } from '../../src/api/operation-table.js';
import * as operations from '../../src/api/operations.js';
import type { ToolCatalog } from '../../src/api/schemas/tools.js';
import { TOOLS, type ToolContext, type ToolSpec } from '../../src/mcp/tools.js';
import { handlers } from '../../src/sandbox/handlers.js';
import { matchRoute } from '../../src/sandbox/routes.js';
import { fixture } from '../support/fixtures.js';
import { samples } from '../support/operation-samples.js';

const names = Object.keys(OPERATION_TABLE) as OperationName[];
const template = (path: string) => new RegExp(`^${path.replace(/:\w+/g, '[^/]+')}$`);

describe('the CLI operation functions', () => {
  it('are exactly the rows of the table', () => {
    expect(Object.keys(operations).sort()).toEqual([...names].sort());
  });

  it.each(names)('%s sends its row: method, path, query keys, request and response schema', (name) => {
    const op = samples[name]();
    const row = OPERATION_TABLE[name];
    expect(op.name).toBe(name);
    expect(op.method).toBe(row.method);
    expect(op.path).toMatch(template(row.path));
    for (const key of Object.keys(op.query ?? {})) expect(row.query).toContain(key);
    expect(op.response).toBe(row.response);
    if ('request' in row) expect(row.request.safeParse(op.body).success).toBe(true);
    else expect(op.body).toBeUndefined();
  });
});

/** Arguments for a tool's input: an id for every id, a time for the incident time. */
function argsFor(tool: ToolSpec): Record<string, unknown> {
  const keys = Object.keys(tool.input.def.shape);
  return Object.fromEntries(
    keys.filter((k) => k.endsWith('Id') || k === 'incidentTime').map((k) => [k, k === 'incidentTime' ? '2026-11-21T12:00:00Z' : 'x_1']),
  );
}

/** Calls a tool with an API client that records what it is sent and answers every operation. */
async function operationsCalledBy(tool: ToolSpec): Promise<string[]> {
  const sent: string[] = [];
  const api = {
    send: async (op: Operation) => {
      sent.push(op.name);
      return { data: op.name === 'getMcpToolCatalog' ? fixture<ToolCatalog>('tools') : {}, status: 200, requestId: undefined };
    },
  };
  const session = { api: async () => api, ui: { warn: () => {} }, svcCommand: () => 'svc' };
  const gate = { canAsk: true, ask: async () => 'accepted' as const };
  await tool.call(argsFor(tool), { api, session, gate, signal: new AbortController().signal } as unknown as ToolContext);
  return sent;
}

describe('the MCP tools', () => {
  it.each(TOOLS.map((t) => [t.name, t] as const))("%s needs the table's scope of its operation", (_name, tool) => {
    expect(tool.scope).toBe(OPERATION_TABLE[tool.operation].scope);
  });

  // plan_restore needs pg_restore and a work dir: test/e2e/mcp-plan.test.ts serves it to a databases:read token.
  const callable = TOOLS.filter((t) => t.name !== 'plan_restore');
  it.each(callable.map((t) => [t.name, t] as const))('%s calls its operation, and nothing that needs another scope', async (_name, tool) => {
    const called = await operationsCalledBy(tool);
    expect(called).toContain(tool.operation);
    for (const name of called) expect([null, tool.scope]).toContain(OPERATION_TABLE[name as OperationName].scope);
  });

  it("a read tool's output schema is its operation's response schema", () => {
    for (const tool of TOOLS.filter((t) => !t.write && t.operation !== 'getMcpToolCatalog' && t.name !== 'plan_restore')) {
      expect(tool.output, tool.name).toBe(OPERATION_TABLE[tool.operation].response);
    }
  });
});

describe("the sandbox's routes", () => {
  it('serve every row of the table, and no other operation', () => {
    expect(Object.keys(handlers).sort()).toEqual([...names].sort());
  });

  it.each(names)('%s: the route the sandbox matches for the path the client sends is its row', (name) => {
    const op = samples[name]();
    const { match } = matchRoute(op.method, op.path);
    expect(match?.name).toBe(name);
    expect(match?.route).toBe(OPERATION_TABLE[name]);
  });
});
