import * as z from '../../zod.js';
import { responseObject } from './common.js';

/**
 * api-v1.md leaves the catalog shape "not shown"; cli-contract 6 fixes an assumed shape
 * and asks for tolerant parsing: only `name` is required of a tool.
 */
export const SUPPORTED_TOOL_CONTRACT = 'w4.2.0';

export const toolEntry = responseObject({
  name: z.string().check(z.minLength(1)),
  risk: z.optional(z.string()),
  capabilityScope: z.optional(z.nullable(z.string())),
  routeScope: z.optional(z.nullable(z.string())),
  humanGate: z.optional(z.nullable(z.string())),
  callable: z.optional(z.boolean()),
  description: z.optional(z.string()),
});
export type ToolEntry = z.infer<typeof toolEntry>;

export const toolCatalogResponse = responseObject({
  version: z.optional(z.string()),
  minimumClientContract: z.optional(z.string()),
  tools: z.array(toolEntry),
});
export type ToolCatalog = z.infer<typeof toolCatalogResponse>;
