import type * as z from '../../zod.js';
import type { OperationRoute } from '../operation-routes.js';

/** One operation of api-v1.md section 4: its route (operation-routes.ts) and its schemas, all the client, the MCP tools and the sandbox know of it. */
export interface OperationRow extends OperationRoute {
  /** The body's schema, where the operation takes one. */
  request?: z.ZodMiniType;
  response: z.ZodMiniType;
}

export type OperationRows = Record<string, OperationRow>;
