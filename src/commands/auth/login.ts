import { text as readStream } from 'node:stream/consumers';
import { getProfile } from '../../api/operations/profile.js';
import { storeToken } from '../../auth/token-store.js';
import { writeProfile } from '../../config/config-file.js';
import { ApiError, InterruptedError, UsageError } from '../../errors.js';
import { shellCommand } from '../../output/shell-quote.js';
import { fields, note } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { profileFields } from '../shared/profile-fields.js';
import { profileNote } from '../../auth/profile-note.js';

export interface LoginOptions {
  withToken: boolean;
  /** A token was given as an argument: refused (see run), never read. */
  tokenInArgv: boolean;
}

export function options([token]: string[], flags: { withToken?: boolean }): LoginOptions {
  return { withToken: flags.withToken === true, tokenInArgv: token !== undefined };
}

/** The command that works: the token piped in, with the flags this run was given. */
function pipeHint(session: Session, lead: string): string {
  return `${lead}: printf %s "$TOKEN" | ${shellCommand(['svc', 'auth', 'login', ...session.loginArgs(), '--with-token'])}`;
}

async function readToken(session: Session, withToken: boolean, baseUrl: string): Promise<string> {
  const { ctx } = session;
  let token: string | undefined;
  // Standard input that is not a terminal holds the token, --with-token or not (cli-contract 4, v5).
  if (withToken || !ctx.stdinIsTTY) {
    token = await readStream(ctx.stdin);
  } else if (ctx.stderrIsTTY) {
    token = await ctx.prompter.secret(`Paste your API token for ${baseUrl} (input is hidden)`, ctx.signal);
    if (token === undefined) throw new InterruptedError('Login cancelled; nothing was stored.');
  } else {
    throw new UsageError(
      'No terminal to prompt for the token on: standard error is not a terminal. Nothing was stored.',
      pipeHint(session, 'Pipe it in instead'),
    );
  }
  // A trailing newline from `echo` or a file is not part of the token; anything else is kept and checked.
  token = token.replace(/\r?\n$/, '').trim();
  if (!token) throw new UsageError('The token is empty; nothing was stored.', pipeHint(session, 'Pipe the token in'));
  if (/[\s\x00-\x1f\x7f-\x9f]/.test(token))
    throw new UsageError('The token contains spaces or control characters; paste exactly the token shown when it was issued. Nothing was stored.');
  return token;
}

export async function run(opts: LoginOptions, session: Session): Promise<void> {
  if (opts.tokenInArgv) {
    throw new UsageError(
      'A token is never accepted on the command line (other users can read it in the process list). Nothing was stored.',
      `${pipeHint(session, 'Pipe it in')}, or run svc auth login in a terminal.`,
    );
  }
  const login = await session.login();
  const token = await readToken(session, opts.withToken, login.baseUrl);
  // Verified before it is stored: a mistyped or revoked token never lands in the keychain.
  let profile;
  try {
    profile = (await (await session.apiWithToken(token)).send(getProfile())).data.profile;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      throw new ApiError(401, err.details.code, `${login.baseUrl} rejected this token, so nothing was stored.`, {
        requestId: err.details.requestId,
        hint: 'Check that you pasted the whole token and that it is neither expired nor revoked (issue a new one in the dashboard).',
      });
    }
    throw err;
  }
  const storedIn = await storeToken(session.ctx, login, token, (m) => session.ui.warn(m));
  // Remembered whichever way the base URL was given: the next shell reaches the same service.
  await writeProfile(session.ctx.env, login.profile, { baseUrl: login.baseUrl });
  if (session.ctx.env.SVC_API_KEY) session.ui.warn('SVC_API_KEY is set in this environment and overrides the stored token until it is unset.');
  await session.out.render({ profileName: login.profile, baseUrl: login.baseUrl, storedIn, profile }, [
    note(
      `Logged in to ${login.baseUrl} as ${profile.organizationSlug} (key ${profile.apiKeyId}${profileNote(login.profile)}); token stored in the ${storedIn}.`,
      'green',
    ),
    fields(profileFields(profile, session.now())),
  ]);
}
