/** The agent clients `svc mcp config` writes a snippet for (a module of its own: help needs only the names). */
export const MCP_CLIENTS = ['claude', 'cursor', 'vscode', 'codex'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];
