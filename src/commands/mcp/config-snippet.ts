import type { McpClient } from '../../core/mcp-clients.js';
import { shellCommand } from '../../output/shell-quote.js';

export interface SnippetInput {
  /** The saved login (its base URL and stored token) the server uses. */
  profile: string;
  /** What follows `svc`: mcp serve and its flags. */
  args: string[];
}

export interface Snippet {
  client: McpClient;
  /** Where it goes. */
  file: string;
  /** The snippet's own format: JSON for three clients, TOML for Codex. */
  format: 'json' | 'toml';
  text: string;
  /** The server entry as data (the --json document). */
  server: { command: string; args: string[]; env: Record<string, string> };
  /** A command that registers the server another way, given only the entry (claude mcp add-json). */
  command?: { lead: string; line: string };
}

const tomlString = (s: string) => JSON.stringify(s);

/**
 * The snippet each agent client reads to start `svc mcp serve` (cli-contract 10): the command, its
 * arguments and the profile (SVC_PROFILE), never a token: the server finds the token the way every
 * svc command does (keychain, credentials file, or SVC_API_KEY of the client's environment).
 */
export function mcpSnippet(client: McpClient, input: SnippetInput): Snippet {
  const env: Record<string, string> = { SVC_PROFILE: input.profile };
  const server = { command: 'svc', args: input.args, env };
  const json = (doc: unknown) => JSON.stringify(doc, null, 2);
  switch (client) {
    case 'claude': {
      const entry = { type: 'stdio', ...server };
      // add-json takes the one server's entry, not the whole .mcp.json document.
      const line = shellCommand(['claude', 'mcp', 'add-json', '--scope', 'user', 'svc', JSON.stringify(entry)]);
      return {
        client,
        file: '.mcp.json (project)',
        format: 'json',
        server,
        text: json({ mcpServers: { svc: entry } }),
        command: { lead: 'Or, for every project (user scope), run:', line },
      };
    }
    case 'cursor':
      return { client, file: '.cursor/mcp.json (project) or ~/.cursor/mcp.json (user)', format: 'json', server, text: json({ mcpServers: { svc: server } }) };
    case 'vscode':
      return { client, file: '.vscode/mcp.json (workspace)', format: 'json', server, text: json({ servers: { svc: { type: 'stdio', ...server } } }) };
    case 'codex':
      return {
        client,
        file: '~/.codex/config.toml',
        format: 'toml',
        server,
        text: [
          '[mcp_servers.svc]',
          `command = ${tomlString(server.command)}`,
          'args = [',
          ...server.args.map((a) => `  ${tomlString(a)},`),
          ']',
          '',
          '[mcp_servers.svc.env]',
          ...Object.entries(env).map(([k, v]) => `${k} = ${tomlString(v)}`),
        ].join('\n'),
      };
  }
}
