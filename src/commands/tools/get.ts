import { CliError } from '../../errors.js';
import { orDash } from '../../output/format.js';
import { fields } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';
import { fetchCatalog, humanGate, toolKind } from '../../core/catalog.js';

export interface GetToolOptions {
  name: string;
}

export function options([name]: string[]): GetToolOptions {
  return { name: requireId(name, 'tool name') };
}

export async function run(opts: GetToolOptions, session: Session): Promise<void> {
  const catalog = await fetchCatalog(session);
  const tool = catalog.tools.find((t) => t.name === opts.name);
  if (!tool) throw new CliError('tool_not_found', `No tool named "${opts.name}" in the service's catalog.`);
  const gate = humanGate(tool);
  await session.out.render(tool, [
    fields([
      ['name', tool.name],
      ['kind', toolKind(tool)],
      ['risk', orDash(tool.risk)],
      ['capability scope', orDash(tool.capabilityScope)],
      ['route scope', orDash(tool.routeScope)],
      ['human gate', gate, gate !== '-' ? 'yellow' : undefined],
      ['description', tool.description],
    ]),
  ]);
}
