import * as z from 'zod';
import { responseObject } from './common.js';

/**
 * api-v1.md leaves the catalog shape "not shown"; cli-contract 6 fixes an assumed shape
 * and asks for tolerant parsing: only `name` is required of a tool.
 */
export const SUPPORTED_TOOL_CONTRACT = 'w4.2.0';

export const toolEntry = responseObject({
  name: z.string().min(1),
  risk: z.string().optional(),
  capabilityScope: z.string().nullable().optional(),
  routeScope: z.string().nullable().optional(),
  humanGate: z.string().nullable().optional(),
  callable: z.boolean().optional(),
  description: z.string().optional(),
});
export type ToolEntry = z.infer<typeof toolEntry>;

export const toolCatalogResponse = responseObject({
  version: z.string().optional(),
  minimumClientContract: z.string().optional(),
  tools: z.array(toolEntry),
});
export type ToolCatalog = z.infer<typeof toolCatalogResponse>;
