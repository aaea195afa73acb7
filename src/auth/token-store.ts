import type { Context } from '../context.js';
import { AuthRequiredError } from '../errors.js';
import { credentialsPath, readFileToken, removeFileToken, writeFileToken } from './credentials-file.js';
import { KEYCHAIN_SERVICE, KeychainUnavailable, withKeychain } from './keychain.js';

export type TokenSource = 'env' | 'keychain' | 'file';

export interface ResolvedToken {
  token: string;
  source: TokenSource;
}

export type Warn = (message: string) => void;

/**
 * No keytar, or no D-Bus session bus to find a Secret Service on (libsecret: "Could not connect",
 * "Cannot autolaunch D-Bus"): the normal headless case, not worth a warning on every command.
 */
const NO_KEYCHAIN = /not installed|no keychain|Could not connect|Cannot autolaunch D-Bus/;

/**
 * SVC_API_KEY, then the keychain entry for this base URL, then the 0600 file (cli-contract 2).
 * Tokens are stored per base URL, so a sandbox token never goes to production.
 */
export async function findToken(ctx: Context, baseUrl: string, warn: Warn): Promise<ResolvedToken | undefined> {
  const fromEnv = ctx.env.SVC_API_KEY?.trim();
  if (fromEnv) return { token: fromEnv, source: 'env' };
  try {
    const stored = await withKeychain(ctx, (k) => k.getPassword(KEYCHAIN_SERVICE, baseUrl));
    if (stored) return { token: stored, source: 'keychain' };
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    // A missing keychain is the normal headless case; only a hung or refusing one is worth a warning.
    if (!NO_KEYCHAIN.test(err.message)) warn(`Keychain unavailable (${err.message}); reading ${credentialsPath(ctx.env)}.`);
  }
  const fromFile = await readFileToken(ctx.env, baseUrl);
  return fromFile ? { token: fromFile, source: 'file' } : undefined;
}

export async function requireToken(ctx: Context, baseUrl: string, warn: Warn): Promise<ResolvedToken> {
  const found = await findToken(ctx, baseUrl, warn);
  if (!found) throw new AuthRequiredError(`No API token is configured for ${baseUrl}.`);
  return found;
}

/** Stores in the keychain, or in the 0600 file where there is none; returns where it went. */
export async function storeToken(ctx: Context, baseUrl: string, token: string, warn: Warn): Promise<'keychain' | 'file'> {
  try {
    await withKeychain(ctx, (k) => k.setPassword(KEYCHAIN_SERVICE, baseUrl, token));
    await removeFileToken(ctx.env, baseUrl);
    return 'keychain';
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    await writeFileToken(ctx.env, baseUrl, token);
    warn(`No usable keychain (${err.message}): the token is stored in ${credentialsPath(ctx.env)} with mode 0600.`);
    return 'file';
  }
}

/** Removes the token from keychain and file; returns the places it was removed from. */
export async function removeToken(ctx: Context, baseUrl: string, warn: Warn): Promise<TokenSource[]> {
  const removed: TokenSource[] = [];
  try {
    if (await withKeychain(ctx, (k) => k.deletePassword(KEYCHAIN_SERVICE, baseUrl))) removed.push('keychain');
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    if (!NO_KEYCHAIN.test(err.message)) warn(`Keychain unavailable (${err.message}).`);
  }
  if (await removeFileToken(ctx.env, baseUrl)) removed.push('file');
  return removed;
}
