import type { McpServer as McpServerType } from '@modelcontextprotocol/sdk/server/mcp.js';
import { getProfile } from '../api/operations/profile.js';
import { requireId } from '../core/args.js';
import { fetchCatalog } from '../core/catalog.js';
import { ApiError, InterruptedError, UsageError } from '../errors.js';
import type { Session } from '../session.js';
import { VERSION } from '../version.js';
import type { Gate } from './gate.js';
import { errorResult, okResult } from './results.js';
import { selectTools } from './select.js';
import { TOOLS, type ToolContext, type ToolSpec } from './tools.js';
import { INSTRUCTIONS } from './wording.js';

export interface ServeOptions {
  readOnly: boolean;
  tools: string[] | undefined;
}

/** Ids go into URL paths: the commands' own check (trimmed, not empty, not a dot segment) applies to them too. */
function checkIds(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => [key, (key.endsWith('Id') || key === 'cursor') && typeof value === 'string' ? requireId(value, key) : value]),
  );
}

/**
 * `svc mcp serve` (cli-contract 10): the token's profile and the live catalog decide the tools,
 * then JSON-RPC over stdin/stdout until the client closes stdin or a signal ends the run. stdout
 * carries JSON-RPC and nothing else (through the session's scrubbing stream); everything a person
 * reads goes to stderr.
 */
export async function serveMcp(session: Session, opts: ServeOptions): Promise<void> {
  const { ctx } = session;
  session.serveAgents();
  const api = await session.api();
  const { chosen, organization } = await chooseTools(session, opts);

  const { McpServer, StdioServerTransport } = await import('./sdk.js');
  const server = new McpServer({ name: 'svc', version: VERSION }, { instructions: INSTRUCTIONS });
  const gate: Gate = {
    get canAsk() {
      return server.server.getClientCapabilities()?.elicitation?.form !== undefined;
    },
    async ask(message, signal) {
      const answer = await server.server.elicitInput(
        {
          mode: 'form',
          message,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Confirm', description: 'Yes, do it' } },
            required: ['confirm'],
          },
        },
        { signal },
      );
      return answer.action === 'accept' && answer.content?.confirm === true ? 'accepted' : 'declined';
    },
  };
  for (const spec of chosen) register(server, spec, { session, api, gate, signal: ctx.signal });

  const transport = new StdioServerTransport(ctx.stdin, ctx.stdout);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(transport);
  // The client ends the session by closing our stdin (the MCP stdio transport's shutdown).
  ctx.stdin.once('end', () => void server.close());
  const names = chosen.map((t) => t.name).join(', ');
  session.ui.info(`svc mcp serve: ${chosen.length} tools for ${organization} on stdio (${names}).`);
  // A person who ran it at a terminal sees why nothing happens (cli-contract 4, v5).
  if (ctx.stdinIsTTY)
    session.ui.info(
      'Waiting for an MCP client on standard input; an agent client starts svc mcp serve itself (svc mcp config <client> prints its snippet). Ctrl-C stops it.',
    );
  let stop: () => void = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    stop = () => reject(stopped(ctx.signal.reason === 'SIGINT' && ctx.stdinIsTTY, session));
    if (ctx.signal.aborted) stop();
    else ctx.signal.addEventListener('abort', stop, { once: true });
  });
  try {
    await Promise.race([closed, interrupted]);
  } finally {
    ctx.signal.removeEventListener('abort', stop);
    await server.close();
  }
}

/** A token the service refuses (401, or 403 on the profile itself): the agent is told by each call, not by a server that dies. */
const refused = (err: unknown) => err instanceof ApiError && (err.status === 401 || err.status === 403);

/**
 * The tools to serve (cli-contract 10): those the token's scopes and the live catalog allow. Both are
 * asked at once and both answers awaited, so a failure of one never leaves the other on its way
 * when the run ends. Where the service refuses the token, the server still starts, with the tools
 * that need no scope (get_profile): each call answers with the service's error and what to do.
 */
async function chooseTools(session: Session, opts: ServeOptions): Promise<{ chosen: ToolSpec[]; organization: string }> {
  const api = await session.api();
  const [profile, catalog] = await Promise.allSettled([api.send(getProfile()), fetchCatalog(session)]);
  const selection = { readOnly: opts.readOnly, names: opts.tools };
  if (profile.status === 'rejected' && refused(profile.reason)) {
    const err = profile.reason as ApiError;
    const { chosen } = selectTools(TOOLS, { ...selection, scopes: [], catalog: { tools: [] } });
    if (!chosen.length) throw err;
    session.ui.warn(
      `The service refused the token (${err.details.code}, HTTP ${err.status}): serving ${chosen.map((t) => t.name).join(', ')} until it is replaced (${session.svcCommand(['auth', 'login'])}).`,
    );
    return { chosen, organization: 'a token the service refused' };
  }
  if (profile.status === 'rejected') throw profile.reason;
  if (catalog.status === 'rejected') throw catalog.reason;
  const { data } = profile.value;
  const { chosen, skipped } = selectTools(TOOLS, { ...selection, scopes: data.profile.scopes, catalog: catalog.value });
  for (const s of skipped) if (opts.tools) session.ui.warn(`${s.name} is not served: ${s.why}.`);
  if (!chosen.length) throw new UsageError('No tool is left to serve.', "Check --tools and --read-only against the token's scopes (svc auth status).");
  return { chosen, organization: data.profile.organizationSlug };
}

/**
 * Ctrl-C at a terminal is how a person stops a server, not a failure: one plain line, still exit 130.
 * A signal from a client or a supervisor is reported as an interruption.
 */
function stopped(ctrlC: boolean, session: Session): InterruptedError {
  if (!ctrlC) return new InterruptedError('Interrupted; the MCP server stopped.');
  session.ui.info('The MCP server stopped (Ctrl-C).');
  return new InterruptedError('The MCP server stopped (Ctrl-C).').said();
}

function register(server: McpServerType, spec: ToolSpec, base: ToolContext): void {
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      outputSchema: spec.output,
      annotations: {
        title: spec.title,
        readOnlyHint: !spec.write,
        destructiveHint: false,
        idempotentHint: spec.idempotent,
        openWorldHint: true,
      },
    },
    async (args: Record<string, unknown>, extra: { signal: AbortSignal }) => {
      const signal = AbortSignal.any([base.signal, extra.signal]);
      try {
        return okResult(await spec.call(checkIds(args), { ...base, signal }), base.session.secrets);
      } catch (err) {
        return errorResult(err, base.session.secrets);
      }
    },
  );
}
