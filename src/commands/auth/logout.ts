import { removeToken } from '../../auth/token-store.js';
import { text } from '../../output/writer.js';
import type { Session } from '../../session.js';

export function options(): Record<string, never> {
  return {};
}

export async function run(_opts: Record<string, never>, session: Session): Promise<void> {
  const baseUrl = await session.baseUrl();
  const removed = await removeToken(session.ctx, baseUrl, (m) => session.ui.warn(m));
  if (session.ctx.env.SVC_API_KEY) session.ui.warn('SVC_API_KEY is still set in this environment and still takes effect.');
  session.out.render({ baseUrl, removedFrom: removed }, [
    text(removed.length ? `Removed the token for ${baseUrl} from the ${removed.join(' and ')}.` : `No stored token for ${baseUrl}.`),
  ]);
}
