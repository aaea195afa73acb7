import type { PublicApiProfile } from '../../api/schemas/profile.js';
import { orDash, timestampWithAge } from '../../output/format.js';
import type { Field } from '../../output/writer.js';

/** The key/value lines of a token's profile: `svc profile`, `auth login` and `auth status` show the same. */
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
