import { getRecoverySummary } from '../../api/operations/recovery.js';
import { text } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';
import { nextCommand, verdictBlock, windowBlock } from './window.js';

export interface RecoverySummaryOptions {
  databaseId: string;
}

export function options([id]: string[]): RecoverySummaryOptions {
  return { databaseId: requireId(id, 'database id') };
}

export async function run(opts: RecoverySummaryOptions, session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getRecoverySummary(opts.databaseId));
  await session.out.render(data, [
    verdictBlock(data),
    data.latest ? windowBlock(data.latest, session.now(), 'Latest recovery window') : text('No recovery window recorded yet.', 'yellow'),
    ...nextCommand(opts.databaseId, data.latest, session),
  ]);
}
