import { toolCatalogResponse } from '../schemas/tools.js';
import { OPERATION_ROUTES as ROUTES } from '../operation-routes.js';
import type { OperationRows } from './row.js';

export const toolRows = {
  getMcpToolCatalog: { ...ROUTES.getMcpToolCatalog, response: toolCatalogResponse },
} as const satisfies OperationRows;
