/**
 * The parts of the MCP SDK svc uses, in one module: the bundle builds it as a file of its own
 * (dist/chunks/mcp-sdk.mjs, tools/bundle.mjs), with the SDK's own copy of the zod code it needs, so
 * that the zod chunk every API command loads does not grow by what the SDK uses of zod. The two
 * copies share zod's global registry and configuration (globalThis), so the SDK reads svc's schemas
 * as its own.
 */
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
