import { text as readStream } from 'node:stream/consumers';
import { getProfile } from '../../api/operations/profile.js';
import { findToken, removeToken, storeToken } from '../../auth/token-store.js';
import { writeConfig } from '../../config/config-file.js';
import { AuthRequiredError, UsageError } from '../../errors.js';
import { fields, text } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { profileFields } from '../profile/run.js';

const EXPIRY_WARNING_DAYS = 7;

async function readToken(session: Session, withToken: boolean): Promise<string> {
  const { ctx } = session;
  let token: string | undefined;
  if (withToken) {
    token = await readStream(ctx.stdin);
  } else if (ctx.stdinIsTTY && ctx.stderrIsTTY) {
    token = await ctx.prompter.secret('Paste your API token (input is hidden)');
    if (token === undefined) throw new UsageError('Login cancelled; nothing was stored.');
  } else {
    throw new UsageError('No terminal to prompt for the token.', 'Pipe it in instead: printf %s "$TOKEN" | svc auth login --with-token');
  }
  token = token.trim();
  if (!token) throw new UsageError('The token is empty; nothing was stored.');
  if (/\s/.test(token)) throw new UsageError('The token contains whitespace; paste exactly the token shown when it was issued.');
  return token;
}

export async function runAuthLogin(session: Session, opts: { withToken: boolean; baseUrlFlag: boolean }): Promise<void> {
  const baseUrl = await session.baseUrl();
  const token = await readToken(session, opts.withToken);
  // Verified before it is stored: a mistyped token never lands in the keychain.
  const { data } = await (await session.apiWithToken(token)).send(getProfile());
  const storedIn = await storeToken(session.ctx, baseUrl, token, (m) => session.ui.warn(m));
  if (opts.baseUrlFlag) await writeConfig(session.ctx.env, { baseUrl });
  session.out.render(
    { baseUrl, storedIn, profile: data.profile },
    [
      text(`Logged in to ${baseUrl} as ${data.profile.organizationSlug} (key ${data.profile.apiKeyId}); token stored in the ${storedIn}.`, 'green'),
      fields(profileFields(data.profile, session.now())),
    ],
  );
}

export async function runAuthStatus(session: Session): Promise<void> {
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
  session.out.render({ baseUrl, source: found.source, profile: p }, [
    fields([['base url', baseUrl], ['token source', source], ...profileFields(p, now)]),
  ]);
}

export async function runAuthLogout(session: Session): Promise<void> {
  const baseUrl = await session.baseUrl();
  const removed = await removeToken(session.ctx, baseUrl, (m) => session.ui.warn(m));
  if (session.ctx.env.SVC_API_KEY) session.ui.warn('SVC_API_KEY is still set in this environment and still takes effect.');
  session.out.render({ baseUrl, removedFrom: removed }, [
    text(removed.length ? `Removed the token for ${baseUrl} from the ${removed.join(' and ')}.` : `No stored token for ${baseUrl}.`),
  ]);
}
