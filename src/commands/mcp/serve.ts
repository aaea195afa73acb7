import type { Session } from '../../session.js';
import { toolChoice, type ToolChoice, type ToolFlags } from './tool-flags.js';

export function options(_args: string[], flags: ToolFlags): ToolChoice {
  return toolChoice(flags);
}

/** `svc mcp serve`: the MCP SDK is loaded here and nowhere else. */
export async function run(opts: ToolChoice, session: Session): Promise<void> {
  const { serveMcp } = await import('../../mcp/server.js');
  await serveMcp(session, opts);
}
