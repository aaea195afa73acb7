import { OPERATION_TABLE, type OperationName, type OperationRow } from '../api/operation-table.js';

export type { OperationName } from '../api/operation-table.js';

/** The sandbox's routes are the rows of the client's own operation table (src/api/operation-table.ts). */
export type RouteDef = OperationRow;

export interface RouteMatch {
  name: OperationName;
  route: RouteDef;
  params: Record<string, string>;
}

const compiled = (Object.entries(OPERATION_TABLE) as [OperationName, RouteDef][]).map(([name, route]) => ({
  name,
  route,
  segments: route.path.split('/').slice(1),
}));

/** Matches a path below /api/v1. `methods` lists what the path allows when only the method is wrong. */
export function matchRoute(method: string, path: string): { match?: RouteMatch; methods: string[] } {
  const parts = path.split('/').slice(1);
  const methods: string[] = [];
  for (const c of compiled) {
    if (c.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const seg = c.segments[i]!;
      const part = parts[i]!;
      if (seg.startsWith(':')) {
        let value: string;
        try {
          value = decodeURIComponent(part);
        } catch {
          value = '';
        }
        if (!value) ok = false;
        else params[seg.slice(1)] = value;
      } else if (seg !== part) ok = false;
    }
    if (!ok) continue;
    if (c.route.method === method) return { match: { name: c.name, route: c.route, params }, methods };
    methods.push(c.route.method);
  }
  return { methods };
}
