import { getProfile } from '../../api/operations/profile.js';
import { credentialsPath } from '../../auth/credentials-file.js';
import { exposureWarnings } from '../../auth/file-permissions.js';
import { findStoredToken, findToken, type ResolvedToken } from '../../auth/token-store.js';
import { readProfiles } from '../../config/config-file.js';
import { AuthRequiredError, isCliError } from '../../errors.js';
import { fields, table } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { profileNote } from '../../auth/profile-note.js';
import { profileFields } from '../shared/profile-fields.js';

const EXPIRY_WARNING_DAYS = 7;

export interface StatusOptions {
  all: boolean;
}

export function options(_args: string[], flags: { all?: boolean }): StatusOptions {
  return { all: flags.all === true };
}

function describeSource(found: ResolvedToken): string {
  if (found.source === 'env') return 'SVC_API_KEY environment variable';
  if (found.source === 'file') return `credentials file (0600)`;
  return `OS keychain${found.backend && found.backend !== 'test' ? ` (${found.backend})` : ''}`;
}

export async function run(opts: StatusOptions, session: Session): Promise<void> {
  for (const warning of await exposureWarnings(credentialsPath(session.ctx.env))) session.ui.warn(warning);
  if (opts.all) return runAll(session);
  const login = await session.login();
  const found = await findToken(session.ctx, login, (m) => session.ui.warn(m));
  if (!found) throw new AuthRequiredError(`Not logged in to ${login.baseUrl}${profileNote(login.profile, ' (profile ', ')')}.`);
  // The token just found, not a second lookup: a slow keychain is asked once, and the source shown is the one used.
  const { data } = await (await session.apiWithToken(found.token)).send(getProfile());
  const p = data.profile;
  const now = session.now();
  if (p.expiresAt) {
    const daysLeft = (Date.parse(p.expiresAt) - now.getTime()) / 86_400_000;
    if (daysLeft < EXPIRY_WARNING_DAYS) {
      session.ui.warn(
        `The token expires ${daysLeft <= 0 ? 'now' : `in ${Math.max(1, Math.floor(daysLeft * 24))}h`} (${p.expiresAt}): issue a new one in the dashboard.`,
      );
    }
  }
  await session.out.render({ profileName: login.profile, baseUrl: login.baseUrl, source: found.source, profile: p }, [
    fields([['profile', login.profile], ['base url', login.baseUrl], ['token source', describeSource(found)], ...profileFields(p, now)]),
  ]);
}

interface ProfileStatus {
  name: string;
  baseUrl: string | null;
  tokenSource: ResolvedToken['source'] | null;
  /** Whether the service accepted the stored token just now; null when it could not be asked. */
  accepted: boolean | null;
  detail: string;
}

/** Every saved profile, its service, where its token is and whether the service still accepts it. Never a token. */
async function runAll(session: Session): Promise<void> {
  const profiles = await readProfiles(session.ctx.env);
  const rows: ProfileStatus[] = [];
  for (const [name, config] of [...profiles].sort(([a], [b]) => a.localeCompare(b))) {
    if (!config.baseUrl) {
      rows.push({ name, baseUrl: null, tokenSource: null, accepted: null, detail: 'no base URL saved' });
      continue;
    }
    const found = await findStoredToken(session.ctx, { profile: name, baseUrl: config.baseUrl }, (m) => session.ui.warn(m));
    if (!found) {
      rows.push({ name, baseUrl: config.baseUrl, tokenSource: null, accepted: null, detail: 'no stored token' });
      continue;
    }
    const row: ProfileStatus = { name, baseUrl: config.baseUrl, tokenSource: found.source, accepted: null, detail: '' };
    try {
      const { data } = await (await session.clientFor(config.baseUrl, found.token)).send(getProfile());
      Object.assign(row, { accepted: true, detail: `${data.profile.organizationSlug} (key ${data.profile.apiKeyId})` });
    } catch (err) {
      if (!isCliError(err)) throw err;
      const rejected = err.details.status === 401;
      Object.assign(row, { accepted: rejected ? false : null, detail: rejected ? 'rejected: log in again' : `not checked: ${err.message}` });
    }
    rows.push(row);
  }
  if (session.ctx.env.SVC_API_KEY) session.ui.warn('SVC_API_KEY is set: it overrides every stored token in this environment.');
  await session.out.render({ profiles: rows }, [
    table(
      rows,
      [
        { header: 'PROFILE', value: (r) => r.name },
        { header: 'BASE URL', value: (r) => r.baseUrl ?? '-' },
        { header: 'TOKEN', value: (r) => (r.tokenSource === 'file' ? 'file (0600)' : (r.tokenSource ?? '-')), drop: 2 },
        { header: 'ACCEPTED', value: (r) => (r.accepted === null ? '-' : r.accepted ? 'yes' : 'no') },
        { header: 'DETAIL', value: (r) => r.detail, shrink: true, drop: 1 },
      ],
      'No saved profiles. Log in with: svc auth login --base-url https://...',
    ),
  ]);
}
