import type { Operation } from '../client.js';
import { toolCatalogResponse } from '../schemas/tools.js';

export const getMcpToolCatalog = () => ({ name: 'getMcpToolCatalog', method: 'GET', path: '/mcp/tools', response: toolCatalogResponse }) satisfies Operation;
