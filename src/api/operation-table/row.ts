import type * as z from '../../zod.js';

/** One operation of api-v1.md section 4: all the client, the MCP tools and the sandbox know of it, written once. */
export interface OperationRow {
  method: 'GET' | 'POST';
  /** Below /api/v1; `:name` segments are path parameters. */
  path: string;
  /** The scope the operation needs (api-v1.md 4); null: a valid key without scopes is enough. */
  scope: string | null;
  /** The only query parameters the operation accepts; the sandbox answers anything else with a 400. */
  query: readonly string[];
  success: 200 | 202;
  /** The body's schema, where the operation takes one. */
  request?: z.ZodMiniType;
  response: z.ZodMiniType;
}

export type OperationRows = Record<string, OperationRow>;

export const PAGE = ['limit', 'cursor'] as const;
