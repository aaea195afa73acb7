import type { ToolCatalog } from '../api/schemas/tools.js';
import { toolKind } from '../core/catalog.js';

/** What decides whether a tool is registered: the token, the live catalog, and the flags. */
export interface Selection {
  scopes: readonly string[];
  catalog: ToolCatalog;
  readOnly: boolean;
  /** --tools: only these (undefined: every tool). */
  names: readonly string[] | undefined;
}

interface Selectable {
  name: string;
  scope: string | null;
  write: boolean;
  catalogTool?: string;
}

/**
 * Which tools to register (cli-contract 10): a tool the flags leave out is never registered, even
 * when named; one whose route scope the token lacks is not; a face of a catalog tool only where
 * the live catalog has that tool live (api-v1.md 4.3 rule 2: advisory and no-live-route tools are
 * never invoked). `skipped` says why a named tool is missing, for the start-up line on stderr.
 */
export function selectTools<T extends Selectable>(tools: readonly T[], s: Selection): { chosen: T[]; skipped: Array<{ name: string; why: string }> } {
  const chosen: T[] = [];
  const skipped: Array<{ name: string; why: string }> = [];
  for (const tool of tools) {
    if (s.names && !s.names.includes(tool.name)) continue;
    const why = reasonToSkip(tool, s);
    if (why) skipped.push({ name: tool.name, why });
    else chosen.push(tool);
  }
  return { chosen, skipped };
}

function reasonToSkip(tool: Selectable, s: Selection): string | undefined {
  if (s.readOnly && tool.write) return '--read-only';
  if (tool.scope && !s.scopes.includes(tool.scope)) return `the token lacks ${tool.scope}`;
  if (tool.catalogTool) {
    const entry = s.catalog.tools.find((t) => t.name === tool.catalogTool);
    if (!entry) return `the service's catalog has no ${tool.catalogTool}`;
    const kind = toolKind(entry);
    if (kind !== 'live') return `the service's catalog marks ${tool.catalogTool} ${kind}`;
    if (entry.routeScope && !s.scopes.includes(entry.routeScope)) return `the token lacks ${entry.routeScope}`;
  }
  return undefined;
}
