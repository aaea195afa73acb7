import { getProfile } from '../../api/operations/profile.js';
import type { PublicApiProfile } from '../../api/schemas/profile.js';
import { orDash, timestampWithAge } from '../../output/format.js';
import { fields, type Field } from '../../output/writer.js';
import type { Session } from '../../session.js';

export function profileFields(p: PublicApiProfile, now: Date): Field[] {
  return [
    ['api key id', p.apiKeyId],
    ['client kind', p.clientKind],
    ['client label', orDash(p.clientLabel)],
    ['autonomy', p.autonomyLevel],
    ['organization', `${p.organizationSlug} (${p.organizationId})`],
    ['scopes', p.scopes.length ? p.scopes.join(', ') : '(none)'],
    ['expires', p.expiresAt ? timestampWithAge(p.expiresAt, now) : 'never'],
  ];
}

export async function runProfile(session: Session): Promise<void> {
  const { data } = await (await session.api()).send(getProfile());
  session.out.render(data, [fields(profileFields(data.profile, session.now()))]);
}
