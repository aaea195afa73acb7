import type * as z from '../zod.js';
import type { PublicApiProfile } from '../api/schemas/profile.js';
import { SANDBOX_FILES, tokenProfile, type settingsFile, type tokensFile } from './data-files.js';
import type { SandboxData, SandboxTokenDef } from './data-model.js';
import { fail, unique } from './data-reader.js';

/**
 * Resolves each token's profile (a fixture's, overridden by inline fields) and collects the organizations.
 * Tokens bind organizations: an organization exists in the sandbox when some token belongs to it.
 */
export function bindTokens(
  tokenFile: z.infer<typeof tokensFile>,
  settings: z.infer<typeof settingsFile>,
  loadProfile: (fixture: string) => PublicApiProfile,
): Pick<SandboxData, 'organizations' | 'tokens'> {
  const tokensPath = SANDBOX_FILES.tokens;
  const organizations = new Map<string, { id: string; slug: string }>();
  const tokens: SandboxTokenDef[] = [];
  unique(tokenFile.tokens, (t) => t.name, 'token name', tokensPath);
  unique(tokenFile.tokens, (t) => t.token, 'token', tokensPath);
  for (const t of tokenFile.tokens) {
    const base = t.profileFixture ? loadProfile(t.profileFixture) : {};
    const { expiresAt: _fromFixture, ...merged } = { ...base, ...t.profile } as PublicApiProfile;
    const profile = tokenProfile.safeParse(merged);
    if (!profile.success) fail(tokensPath, `token ${t.name}: incomplete profile (${profile.error.issues[0]?.path.join('.')})`);
    const org = organizations.get(profile.data.organizationId);
    if (org && org.slug !== profile.data.organizationSlug) {
      fail(tokensPath, `token ${t.name}: organization ${org.id} has two slugs (${org.slug}, ${profile.data.organizationSlug})`);
    }
    organizations.set(profile.data.organizationId, { id: profile.data.organizationId, slug: profile.data.organizationSlug });
    tokens.push({
      name: t.name,
      token: t.token,
      purpose: t.purpose,
      profile: profile.data,
      expiresInSeconds: t.expiresInSeconds,
      revoked: t.revoked === true,
      rateLimit: t.rateLimit ?? settings.rateLimit,
    });
  }
  return { organizations, tokens };
}
