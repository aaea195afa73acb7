import { getProfile } from '../../api/operations/profile.js';
import { fields } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { profileFields } from '../shared/profile-fields.js';

export function options(): Record<string, never> {
  return {};
}

export async function run(_opts: Record<string, never>, session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getProfile());
  await session.out.render(data, [fields(profileFields(data.profile, session.now()))]);
}
