import { getMcpToolCatalog } from '../../api/operations/tools.js';
import { SUPPORTED_TOOL_CONTRACT, type ToolCatalog, type ToolEntry } from '../../api/schemas/tools.js';
import { CliError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { orDash } from '../../output/format.js';
import { fields, table, text } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../args.js';

export type ToolKind = 'live' | 'no live route' | 'advisory';

/** api-v1.md 4.3: only a callable tool with a real route scope may be invoked, through its REST route. */
export function toolKind(tool: ToolEntry): ToolKind {
  if (tool.callable === false) return 'advisory';
  const scope = tool.routeScope?.trim();
  if (!scope || scope === 'none') return 'no live route';
  return 'live';
}

const gate = (t: ToolEntry): string => (t.humanGate && t.humanGate !== 'none' ? t.humanGate : '-');

function versionParts(v: string): number[] {
  return v.replace(/^w/i, '').split('.').map((n) => Number.parseInt(n, 10) || 0);
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

async function fetchCatalog(session: Session): Promise<ToolCatalog> {
  const { data } = await (await session.api()).send(getMcpToolCatalog());
  if (data.minimumClientContract && contractIsNewer(data.minimumClientContract)) {
    session.ui.warn(
      `The service's tool catalog requires client contract ${data.minimumClientContract}; this svc speaks ${SUPPORTED_TOOL_CONTRACT}. Upgrade svc.`,
    );
  }
  return data;
}

export async function runToolsList(session: Session): Promise<void> {
  const catalog = await fetchCatalog(session);
  session.out.render(catalog, [
    text(`Tool catalog ${orDash(catalog.version)} (minimum client contract ${orDash(catalog.minimumClientContract)})`),
    table(
      catalog.tools,
      [
        { header: 'NAME', value: (t: ToolEntry) => t.name },
        { header: 'KIND', value: toolKind },
        { header: 'RISK', value: (t) => orDash(t.risk) },
        { header: 'ROUTE SCOPE', value: (t) => orDash(t.routeScope) },
        { header: 'HUMAN GATE', value: gate },
      ],
      'The catalog lists no tools.',
    ),
    text('Only "live" tools may be invoked, through their REST route. "no live route" and "advisory" tools are never invoked.', 'dim'),
  ]);
}

export async function runToolsGet(session: Session, rawName: string): Promise<void> {
  const name = requireId(rawName, 'tool name');
  const catalog = await fetchCatalog(session);
  const tool = catalog.tools.find((t) => t.name === name);
  if (!tool) {
    throw new CliError(ExitCode.notFound, `No tool named "${name}" in the service's catalog.`, {
      code: 'tool_not_found',
      hint: 'Run `svc tools list` to see the names.',
    });
  }
  session.out.render(tool, [
    fields([
      ['name', tool.name],
      ['kind', toolKind(tool)],
      ['risk', orDash(tool.risk)],
      ['capability scope', orDash(tool.capabilityScope)],
      ['route scope', orDash(tool.routeScope)],
      ['human gate', gate(tool), gate(tool) !== '-' ? 'yellow' : undefined],
      ['description', tool.description],
    ]),
  ]);
}
