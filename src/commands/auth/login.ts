import { text as readStream } from 'node:stream/consumers';
import { getProfile } from '../../api/operations/profile.js';
import { storeToken } from '../../auth/token-store.js';
import { writeConfig } from '../../config/config-file.js';
import { UsageError } from '../../errors.js';
import { fields, text } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { profileFields } from '../shared/profile-fields.js';

export interface LoginOptions {
  withToken: boolean;
}

export function options([token]: string[], flags: { withToken?: boolean }): LoginOptions {
  if (token !== undefined) {
    throw new UsageError(
      'A token is never accepted on the command line (other users can read it in the process list). Nothing was stored.',
      'Pipe it in: printf %s "$TOKEN" | svc auth login --with-token, or run svc auth login in a terminal.',
    );
  }
  return { withToken: flags.withToken === true };
}

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

export async function run(opts: LoginOptions, session: Session): Promise<void> {
  const baseUrl = await session.baseUrl();
  const token = await readToken(session, opts.withToken);
  // Verified before it is stored: a mistyped token never lands in the keychain.
  const { data } = await (await session.apiWithToken(token)).send(getProfile());
  const storedIn = await storeToken(session.ctx, baseUrl, token, (m) => session.ui.warn(m));
  if (session.baseUrlGiven) await writeConfig(session.ctx.env, { baseUrl });
  session.out.render({ baseUrl, storedIn, profile: data.profile }, [
    text(`Logged in to ${baseUrl} as ${data.profile.organizationSlug} (key ${data.profile.apiKeyId}); token stored in the ${storedIn}.`, 'green'),
    fields(profileFields(data.profile, session.now())),
  ]);
}
