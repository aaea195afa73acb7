import type { Command } from 'commander';
import { MCP_CLIENTS } from '../../core/mcp-clients.js';
import { examples, prose, verb, type CommandHost } from '../shared/verb.js';

/** Registers the mcp verbs on their group command (program.ts creates it). The MCP SDK loads only in serve's run. */
export function registerMcp(mcp: Command, host: CommandHost): void {
  mcp
    .command('serve')
    .description('Serve svc to an AI agent client as a local MCP server on stdio (JSON-RPC on stdout, logs on stderr)')
    .option('--read-only', 'register read tools only: trigger_backup is never offered')
    .option('--tools <names>', 'register only these tools (comma-separated), as far as the token and --read-only allow')
    .addHelpText(
      'after',
      prose(
        "An agent client starts this itself: `svc mcp config <client>` prints its snippet. It uses the same token and profile as every command (SVC_API_KEY, --profile) and registers only the tools the token's scopes allow. No tool restores, drills or changes a database: plan_restore returns the command for a person to run. A completed backup is not proof of recoverability, and nothing here is point-in-time recovery.",
      ),
    )
    .addHelpText(
      'after',
      examples('svc mcp serve', 'svc mcp serve --read-only', 'svc --profile prod mcp serve --tools list_databases,get_recovery_candidate,plan_restore'),
    )
    .action(verb(host, () => import('./serve.js')));
  mcp
    .command('config')
    .description('Print the snippet an agent client needs to start svc mcp serve (never a token)')
    // Optional for commander, so that a missing client is options()' to refuse, naming the set.
    .argument('[client]', MCP_CLIENTS.join(', '))
    .usage('[options] <client>')
    .option('--read-only', 'the snippet starts the server with --read-only')
    .option('--tools <names>', 'the snippet starts the server with --tools <names>')
    .addHelpText('after', examples('svc mcp config claude', 'svc --profile prod mcp config vscode --read-only', 'svc mcp config codex >> ~/.codex/config.toml'))
    .action(verb(host, () => import('./config.js')));
}
