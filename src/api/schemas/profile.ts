import * as z from '../../zod.js';
import { id, responseObject, timestamp } from './common.js';

export const clientKinds = ['web', 'cli', 'mcp_external'] as const;
export const autonomyLevels = ['read_only', 'guided', 'autonomous'] as const;

export const publicApiProfile = responseObject({
  apiKeyId: id,
  clientKind: z.enum(clientKinds),
  clientLabel: z.nullable(z.string().check(z.minLength(1))),
  autonomyLevel: z.enum(autonomyLevels),
  organizationId: id,
  organizationSlug: id,
  // May be empty: a token with no scopes can still call getProfile (cli-contract 6).
  scopes: z.array(z.string().check(z.minLength(1))),
  expiresAt: z.optional(timestamp),
});
export type PublicApiProfile = z.infer<typeof publicApiProfile>;

export const getProfileResponse = responseObject({ profile: publicApiProfile });
