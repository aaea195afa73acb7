import { UsageError } from '../../errors.js';
import { mcpSnippet } from './config-snippet.js';
import { commandsNote, note, text } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { MCP_CLIENTS, type McpClient } from '../../core/mcp-clients.js';
import { toolChoice, type ToolChoice, type ToolFlags } from './tool-flags.js';

export interface ConfigOptions extends ToolChoice {
  client: McpClient;
}

export function options([client]: string[], flags: ToolFlags): ConfigOptions {
  if (client === undefined) throw new UsageError(`Name a client: svc prints snippets for ${MCP_CLIENTS.join(', ')}.`, 'For example: svc mcp config claude');
  if (!MCP_CLIENTS.includes(client as McpClient)) {
    throw new UsageError(`No snippet for "${client}".`, `Clients: ${MCP_CLIENTS.join(', ')}.`);
  }
  return { client: client as McpClient, ...toolChoice(flags) };
}

/** `svc mcp config <client>`: the snippet on stdout, where it goes on stderr. Reads no token, sends nothing. */
export async function run(opts: ConfigOptions, session: Session): Promise<void> {
  const args = ['mcp', 'serve', ...(opts.readOnly ? ['--read-only'] : []), ...(opts.tools ? ['--tools', opts.tools.join(',')] : [])];
  const snippet = mcpSnippet(opts.client, { profile: session.settings.profile, args });
  await session.out.render(snippet, [
    note(
      `Add this to ${snippet.file}. It names the profile "${session.settings.profile}", never a token: log in first with svc auth login${session.settings.profile === 'default' ? '' : ` --profile ${session.settings.profile}`}.`,
      'dim',
    ),
    ...(snippet.command ? [note(snippet.command.lead, 'dim'), commandsNote([`  ${snippet.command.line}`])] : []),
    text(snippet.text),
  ]);
}
