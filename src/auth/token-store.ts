import { DEFAULT_PROFILE } from '../config/config-file.js';
import { profileNote } from './profile-note.js';
import type { Context } from '../context.js';
import { AuthRequiredError } from '../errors.js';
import { credentialsPath, readFileTokens, removeFileTokens, writeFileToken } from './credentials-file.js';
import { KEYCHAIN_SERVICE, KeychainUnavailable, withKeychain } from './keychain.js';

export type TokenSource = 'env' | 'keychain' | 'file';

/** A saved login: a profile and the service it logs into. */
export interface Login {
  profile: string;
  baseUrl: string;
}

export interface ResolvedToken {
  token: string;
  source: TokenSource;
  /** The keychain binding that held it. */
  backend?: string;
}

export type Warn = (message: string) => void;
type StoreContext = Pick<Context, 'env' | 'keytar'>;

/**
 * No binding installed, or no D-Bus session bus to find a Secret Service on ("Could not connect",
 * "Cannot autolaunch D-Bus", a missing org.freedesktop.secrets): the normal headless case, not
 * worth a warning on every command.
 */
const NO_KEYCHAIN =
  /not installed|no keychain|SVC_KEYCHAIN=file|Could not connect|autolaunch|D-Bus|DBus|dbus|No such interface|secret service|platform secure storage/i;

/**
 * The keychain account and credentials-file key of a login. A token is stored per profile and base
 * URL, so a sandbox token never goes to production; the default profile keeps the bare base URL,
 * the key used before profiles existed.
 */
export function tokenKey(login: Login): string {
  return login.profile === DEFAULT_PROFILE ? login.baseUrl : `${login.profile}@${login.baseUrl}`;
}

/**
 * Why the keychain could not be used, in a few words (cli-contract 4, v4): a binding's error is raw
 * D-Bus text over several lines, which tells a person nothing they can act on.
 */
export function keychainCause(message: string): string {
  if (/(Could not|Failed to) connect|autolaunch|DBUS_SESSION_BUS_ADDRESS|dbus-launch|\/bus: No such file/i.test(message)) return 'no D-Bus session bus';
  if (/org\.freedesktop\.secrets|ServiceUnknown|No such interface|not provided by any \.service/i.test(message)) return 'no Secret Service is running';
  if (/is not installed/i.test(message)) return 'no keychain binding is installed';
  // svc's own words ("the keychain did not answer within 3s", "the keychain refused: ..."), first line only.
  const first = message.split('\n')[0]!.trim();
  return first.length > 100 ? `${first.slice(0, 99)}…` : first || 'an unknown error';
}

function keychainTrouble(err: unknown, warn: Warn, ctx: StoreContext, then: string): void {
  if (!(err instanceof KeychainUnavailable)) throw err;
  // A missing keychain is the normal headless case; only a hung or refusing one is worth a warning.
  if (!NO_KEYCHAIN.test(err.message)) warn(`Keychain unavailable (${keychainCause(err.message)}); ${then} ${credentialsPath(ctx.env)}.`);
}

/** The token stored for a login (keychain, then the 0600 file), ignoring SVC_API_KEY. */
export async function findStoredToken(ctx: StoreContext, login: Login, warn: Warn): Promise<ResolvedToken | undefined> {
  const key = tokenKey(login);
  try {
    const stored = await withKeychain(ctx, async (k) => ({ token: await k.getPassword(KEYCHAIN_SERVICE, key), backend: k.backend }));
    if (stored.token) return { token: stored.token, source: 'keychain', backend: stored.backend };
  } catch (err) {
    keychainTrouble(err, warn, ctx, 'reading');
  }
  const tokens = await readFileTokens(ctx.env);
  const fromFile = Object.hasOwn(tokens, key) ? tokens[key] : undefined;
  return fromFile ? { token: fromFile, source: 'file' } : undefined;
}

/** SVC_API_KEY, then the keychain entry of this login, then the 0600 file (cli-contract 2). */
export async function findToken(ctx: StoreContext, login: Login, warn: Warn): Promise<ResolvedToken | undefined> {
  const fromEnv = ctx.env.SVC_API_KEY;
  if (fromEnv) return { token: fromEnv, source: 'env' };
  return findStoredToken(ctx, login, warn);
}

export async function requireToken(ctx: StoreContext, login: Login, warn: Warn): Promise<ResolvedToken> {
  const found = await findToken(ctx, login, warn);
  if (!found) throw new AuthRequiredError(`No API token is configured for ${login.baseUrl}${profileNote(login.profile)}.`);
  return found;
}

/** Stores in the keychain, or in the 0600 file where there is none; returns where it went. */
export async function storeToken(ctx: StoreContext, login: Login, token: string, warn: Warn): Promise<'keychain' | 'file'> {
  const key = tokenKey(login);
  try {
    await withKeychain(ctx, (k) => k.setPassword(KEYCHAIN_SERVICE, key, token));
    await removeFileTokens(ctx.env, [key]);
    return 'keychain';
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    await writeFileToken(ctx.env, key, token);
    warn(
      `No usable keychain (${keychainCause(err.message)}): the token is stored in ${credentialsPath(ctx.env)} with mode 0600; for the OS keychain on Linux, run a Secret Service (gnome-keyring, KeePassXC) in your session.`,
    );
    return 'file';
  }
}

/** Removes the login's token from keychain and file; returns the places it was removed from. */
export async function removeToken(ctx: StoreContext, login: Login, warn: Warn): Promise<TokenSource[]> {
  const removed: TokenSource[] = [];
  try {
    if (await withKeychain(ctx, (k) => k.deletePassword(KEYCHAIN_SERVICE, tokenKey(login)))) removed.push('keychain');
  } catch (err) {
    keychainTrouble(err, warn, ctx, 'removing from');
  }
  if (await removeFileTokens(ctx.env, [tokenKey(login)])) removed.push('file');
  return removed;
}
