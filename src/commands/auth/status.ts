import { getProfile } from '../../api/operations/profile.js';
import { findToken } from '../../auth/token-store.js';
import { AuthRequiredError } from '../../errors.js';
import { fields } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { profileFields } from '../shared/profile-fields.js';

const EXPIRY_WARNING_DAYS = 7;

export function options(): Record<string, never> {
  return {};
}

export async function run(_opts: Record<string, never>, session: Session): Promise<void> {
  const baseUrl = await session.baseUrl();
  const found = await findToken(session.ctx, baseUrl, (m) => session.ui.warn(m));
  if (!found) throw new AuthRequiredError(`Not logged in to ${baseUrl}.`);
  // The token just found, not a second lookup: a slow keychain is asked once, and the source shown is the one used.
  const { data } = await (await session.apiWithToken(found.token)).send(getProfile());
  const p = data.profile;
  const now = session.now();
  if (p.expiresAt) {
    const daysLeft = (Date.parse(p.expiresAt) - now.getTime()) / 86_400_000;
    if (daysLeft < EXPIRY_WARNING_DAYS) {
      session.ui.warn(`The token expires ${daysLeft <= 0 ? 'now' : `in ${Math.max(1, Math.floor(daysLeft * 24))}h`} (${p.expiresAt}): issue a new one in the dashboard.`);
    }
  }
  const source = { env: 'SVC_API_KEY environment variable', keychain: 'OS keychain', file: 'credentials file (0600)' }[found.source];
  session.out.render({ baseUrl, source: found.source, profile: p }, [fields([['base url', baseUrl], ['token source', source], ...profileFields(p, now)])]);
}
