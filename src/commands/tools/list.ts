import type { ToolEntry } from '../../api/schemas/tools.js';
import { orDash } from '../../output/format.js';
import { note, table } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { fetchCatalog, humanGate, toolKind } from '../../core/catalog.js';

export function options(): Record<string, never> {
  return {};
}

export async function run(_opts: Record<string, never>, session: Session): Promise<void> {
  const catalog = await fetchCatalog(session);
  await session.out.render(catalog, [
    note(`Tool catalog ${orDash(catalog.version)} (minimum client contract ${orDash(catalog.minimumClientContract)})`),
    table(
      catalog.tools,
      [
        { header: 'NAME', value: (t: ToolEntry) => t.name },
        { header: 'KIND', value: toolKind },
        { header: 'RISK', value: (t) => orDash(t.risk), drop: 3 },
        { header: 'ROUTE SCOPE', short: 'SCOPE', value: (t) => orDash(t.routeScope), drop: 1 },
        { header: 'HUMAN GATE', short: 'GATE', value: humanGate, drop: 2 },
      ],
      'The catalog lists no tools.',
    ),
    note('Only "live" tools may be invoked, through their REST route. "no live route" and "advisory" tools are never invoked.', 'dim'),
  ]);
}
