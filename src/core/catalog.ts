import { getMcpToolCatalog } from '../api/operations/tools.js';
import { SUPPORTED_TOOL_CONTRACT, type ToolCatalog, type ToolEntry } from '../api/schemas/tools.js';
import type { Session } from '../session.js';

export type ToolKind = 'live' | 'no live route' | 'advisory';

/** api-v1.md 4.3: only a callable tool with a real route scope may be invoked, through its REST route. */
export function toolKind(tool: ToolEntry): ToolKind {
  if (tool.callable === false) return 'advisory';
  const scope = tool.routeScope?.trim();
  if (!scope || scope === 'none') return 'no live route';
  return 'live';
}

export const humanGate = (t: ToolEntry): string => (t.humanGate && t.humanGate !== 'none' ? t.humanGate : '-');

function versionParts(v: string): number[] {
  return v
    .replace(/^w/i, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
}

/** True when the server requires a newer client contract than this build speaks. */
export function contractIsNewer(required: string, supported = SUPPORTED_TOOL_CONTRACT): boolean {
  const a = versionParts(required);
  const b = versionParts(supported);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return false;
}

/** getMcpToolCatalog, with a warning when the service expects a newer client. */
export async function fetchCatalog(session: Session): Promise<ToolCatalog> {
  const { data } = await (await session.api()).send(getMcpToolCatalog());
  if (data.minimumClientContract && contractIsNewer(data.minimumClientContract)) {
    session.ui.warn(
      `The service's tool catalog requires client contract ${data.minimumClientContract}; this svc speaks ${SUPPORTED_TOOL_CONTRACT}. Upgrade svc.`,
    );
  }
  return data;
}
