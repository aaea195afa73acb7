import { toolCatalogResponse } from '../schemas/tools.js';
import type { OperationRows } from './row.js';

export const toolRows = {
  getMcpToolCatalog: { method: 'GET', path: '/mcp/tools', scope: null, query: [], success: 200, response: toolCatalogResponse },
} as const satisfies OperationRows;
