import { removeToken } from '../../auth/token-store.js';
import { note } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { profileNote } from '../../auth/profile-note.js';

export function options(): Record<string, never> {
  return {};
}

/** Removes the profile's stored token from keychain and file; the profile keeps its base URL, so `auth status` can say it is logged out. */
export async function run(_opts: Record<string, never>, session: Session): Promise<void> {
  const login = await session.login();
  const removed = await removeToken(session.ctx, login, (m) => session.ui.warn(m));
  if (session.ctx.env.SVC_API_KEY) session.ui.warn('SVC_API_KEY is still set in this environment and still takes effect.');
  await session.out.render({ profileName: login.profile, baseUrl: login.baseUrl, removedFrom: removed }, [
    note(
      removed.length
        ? `Removed the token for ${login.baseUrl}${profileNote(login.profile, ' (profile ', ')')} from the ${removed.join(' and ')}.`
        : `No stored token for ${login.baseUrl}${profileNote(login.profile, ' (profile ', ')')}.`,
    ),
  ]);
}
