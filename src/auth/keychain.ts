import type { Context, KeytarLike } from '../context.js';

export const KEYCHAIN_SERVICE = 'svc';
const KEYCHAIN_TIMEOUT_MS = 3_000;

/** Why the keychain could not be used; shown as a warning before falling back to the file. */
export class KeychainUnavailable extends Error {}

async function loadKeytar(ctx: Context): Promise<KeytarLike> {
  if (ctx.keytar !== undefined) {
    if (ctx.keytar === null) throw new KeychainUnavailable('no keychain in this environment');
    return ctx.keytar;
  }
  try {
    // keytar is an optionalDependency: absent where libsecret could not be built.
    const mod = (await import('keytar')) as unknown as { default?: KeytarLike } & KeytarLike;
    return mod.default ?? mod;
  } catch {
    throw new KeychainUnavailable('keytar is not installed');
  }
}

/** Runs one keychain call with a deadline: a locked or absent Secret Service can hang forever. */
export async function withKeychain<T>(ctx: Context, call: (keytar: KeytarLike) => Promise<T>): Promise<T> {
  const keytar = await loadKeytar(ctx);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new KeychainUnavailable('the keychain did not answer within 3s')), KEYCHAIN_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([call(keytar), deadline]);
  } catch (err) {
    if (err instanceof KeychainUnavailable) throw err;
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new KeychainUnavailable(`the keychain refused: ${reason}`);
  } finally {
    clearTimeout(timer);
  }
}
