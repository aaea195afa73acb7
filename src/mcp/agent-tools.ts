import { toolCatalogResponse, toolEntry } from '../api/schemas/tools.js';
import { fetchCatalog, humanGate, toolKind } from '../core/catalog.js';
import * as z from '../zod.js';
import type { ToolContext } from './tools.js';

/** The catalog as the service sends it, each tool with the kind `svc tools list` shows (cli-contract 6). */
export const agentToolsOutput = z.extend(toolCatalogResponse, {
  tools: z.array(z.extend(toolEntry, { kind: z.enum(['live', 'no live route', 'advisory']), gate: z.string() })),
});

/** list_agent_tools: the live catalog, read afresh, each tool marked live, no live route or advisory. */
export async function listAgentTools({ session }: Pick<ToolContext, 'session'>): Promise<Record<string, unknown>> {
  const catalog = await fetchCatalog(session);
  return { ...catalog, tools: catalog.tools.map((t) => ({ ...t, kind: toolKind(t), gate: humanGate(t) })) };
}
